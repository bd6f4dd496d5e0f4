// Shared check on relative paths.
#include <cctype>

#include "trace/detail/report.h"

namespace kh::detail {

std::string unsafe_path_reason(std::string_view path) {
  if (path.empty()) return "is empty";
  // Both separators count: a path written on Windows must not escape on Linux either.
  if (path.front() == '/' || path.front() == '\\') return "is absolute";
  if (path.size() >= 2 && std::isalpha(static_cast<unsigned char>(path[0])) != 0 && path[1] == ':')
    return "is absolute";
  // File systems refuse longer names (NAME_MAX); a compiler would fail on them late.
  constexpr std::size_t kMostPartBytes = 255;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find_first_of("/\\", start);
    if (end == std::string_view::npos) end = path.size();
    if (path.substr(start, end - start) == "..") return "contains a '..' component";
    if (end - start > kMostPartBytes) return "has a part longer than 255 bytes";
    start = end + 1;
  }
  if (path.find('\0') != std::string_view::npos) return "contains a NUL byte";
  return "";
}

}  // namespace kh::detail
