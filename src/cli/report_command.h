// `kharness report`: leaderboards, fast_p, per-workload tables and SVG plots of the
// definitions in an archive, as markdown, CSV or JSON (docs/reports.md).
#pragma once

#include <CLI/CLI.hpp>

namespace kh::cli {

void register_report(CLI::App& app, int& exit_code);

}  // namespace kh::cli
