// `kharness eval`: build, check and time one solution on a definition's workloads, and
// print one row per workload. Parsing and printing only; the harness is eval/.
#pragma once

#include <CLI/CLI.hpp>

namespace kh::cli {

// Adds the subcommand; when it runs it stores its exit status (0 every workload
// passed, 1 some did not, 2 usage or setup error) in `exit_code`.
void register_eval(CLI::App& app, int& exit_code);

// The hidden `__worker` subcommand that eval starts as its measurement workers.
void register_worker(CLI::App& app, int& exit_code);

}  // namespace kh::cli
