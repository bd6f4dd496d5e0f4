// The paths an agent may name in its answer: relative, inside the candidate's folder,
// plain names only. Checked on the text before any file is opened or written, so a
// hostile answer ("../../.bashrc", "/etc/passwd") never reaches the file system.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kh::agents {

// Why `path` is not allowed, or nothing when it is. Allowed: 1 to 4 components of
// [A-Za-z0-9._+-] separated by '/', none "." or "..", none starting with '-', at most
// 200 characters in all.
[[nodiscard]] std::optional<std::string> path_problem(std::string_view path);

}  // namespace kh::agents
