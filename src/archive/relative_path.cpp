#include "archive/relative_path.h"

#include <string>

#include "error/error.h"

namespace kh::archive {
namespace fs = std::filesystem;

std::optional<fs::path> contained_path(std::string_view text) {
  if (text.empty() || text.find('\0') != std::string_view::npos) return std::nullopt;
  // Both separators count: a path written on Windows must not escape here either.
  std::string unified(text);
  for (char& c : unified)
    if (c == '\\') c = '/';
  const fs::path p = fs::path(unified).lexically_normal();
  if (p.empty() || p.has_root_path() || p == ".") return std::nullopt;
  for (const fs::path& part : p)
    if (part == "..") return std::nullopt;
  return p;
}

fs::path require_contained_path(std::string_view text, std::string_view field) {
  std::optional<fs::path> p = contained_path(text);
  if (!p) {
    throw Error(Location{"", 0, std::string(field)},
                "path '" + std::string(text) + "' is absolute or leaves its folder; refused");
  }
  return *p;
}

}  // namespace kh::archive
