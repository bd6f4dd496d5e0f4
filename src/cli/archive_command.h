// `kharness archive import|export|ls|verify` and `kharness rerun`: parsing and
// printing only; the archive itself is src/archive/.
#pragma once

#include <CLI/CLI.hpp>

namespace kh::cli {

// Exit status: 0 success, 1 the command ran but found problems (bad documents on
// import, a broken archive on verify), 2 usage or setup error.
void register_archive(CLI::App& app, int& exit_code);

// Exit status: 0 every workload has its old status again, 1 some differ, 2 error.
void register_rerun(CLI::App& app, int& exit_code);

}  // namespace kh::cli
