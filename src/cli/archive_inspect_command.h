// `kharness archive ls` and `kharness archive verify`, added under `archive`.
#pragma once

#include <CLI/CLI.hpp>

namespace kh::cli {

void add_archive_ls(CLI::App& archive, int& exit_code);
void add_archive_verify(CLI::App& archive, int& exit_code);

}  // namespace kh::cli
