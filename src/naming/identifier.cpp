#include "naming/identifier.h"

namespace kh {

namespace {
bool is_alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
}  // namespace

bool is_identifier(std::string_view s) noexcept {
  if (s.empty() || !is_alpha(s.front())) return false;
  for (char c : s) {
    if (!is_alpha(c) && !is_digit(c)) return false;
  }
  return true;
}

bool is_qualified_identifier(std::string_view s) noexcept {
  while (true) {
    const std::size_t sep = s.find("::");
    if (!is_identifier(s.substr(0, sep))) return false;
    if (sep == std::string_view::npos) return true;
    s.remove_prefix(sep + 2);
  }
}

}  // namespace kh
