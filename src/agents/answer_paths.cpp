#include "agents/answer_paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace kh::agents {

namespace {

constexpr std::size_t kMaxPathChars = 200;
constexpr std::size_t kMaxDepth = 4;

bool allowed_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-' || c == '+';
}

}  // namespace

std::optional<std::string> path_problem(std::string_view path) {
  if (path.empty()) return "is empty";
  if (path.size() > kMaxPathChars) return fmt::format("is longer than {} characters", kMaxPathChars);
  if (path.front() == '/') return "is absolute";
  std::size_t depth = 0;
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto slash = path.find('/', start);
    const std::string_view part =
        path.substr(start, slash == std::string_view::npos ? path.npos : slash - start);
    if (part.empty()) return "has an empty component ('//' or a trailing '/')";
    if (part == "..") return "climbs out of its folder ('..')";
    if (part == ".") return "has a '.' component";
    if (part.front() == '-') return fmt::format("has a component starting with '-' ('{}')", part);
    const auto bad = std::find_if_not(part.begin(), part.end(), allowed_char);
    if (bad != part.end()) {
      return fmt::format("has a character outside [A-Za-z0-9._+-] (code {})", static_cast<int>(*bad));
    }
    if (++depth > kMaxDepth) return fmt::format("is nested deeper than {} folders", kMaxDepth);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return std::nullopt;
}

}  // namespace kh::agents
