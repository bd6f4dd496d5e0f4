// Finding a compiler and asking it who it is.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kh::detail {

// Looks for a compiler: $<env_var> if set (and env_var is not empty) (it must then be an executable file,
// else kh::Error: a typo in an override must not silently pick another compiler),
// then `name` on $PATH, then each of `fallbacks`. nullopt when none is found.
[[nodiscard]] std::optional<std::filesystem::path> find_compiler(
    std::string_view env_var, std::string_view name, const std::vector<std::filesystem::path>& fallbacks);

// The output of `<exe> --version` with blank lines dropped and lines joined by "; ",
// run once per executable per process (compilers do not change under a running
// harness; asking each build would cost a process spawn). Throws kh::Error when
// the compiler cannot be run or fails.
[[nodiscard]] std::string compiler_version(const std::filesystem::path& exe);

}  // namespace kh::detail
