// `kharness optimize`: the optimisation loop (control/optimize_loop.h) on one
// definition, resumable from its archive.
#pragma once

#include <CLI/CLI.hpp>

namespace kh::cli {

void register_optimize(CLI::App& app, int& exit_code);

}  // namespace kh::cli
