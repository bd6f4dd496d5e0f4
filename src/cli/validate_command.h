// `kharness validate PATH...`: load definitions, solutions, workloads and traces (files or
// trace-set folders), check them, and print every problem. Parsing and printing only; the
// rules live in trace/validate*.h.
#pragma once

#include <CLI/CLI.hpp>

namespace kh::cli {

// Adds the subcommand; when it runs it stores its exit status (0 valid, 1 invalid) in
// `exit_code`.
void register_validate(CLI::App& app, int& exit_code);

}  // namespace kh::cli
