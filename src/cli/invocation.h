// The command line kharness was started with, kept so that the archive can record how
// each run was made.
#pragma once

#include <string>
#include <vector>

namespace kh::cli {

void remember_invocation(int argc, char** argv);
[[nodiscard]] const std::vector<std::string>& invocation();

}  // namespace kh::cli
