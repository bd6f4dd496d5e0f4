#include "trace/non_finite.h"

#include <array>
#include <cctype>
#include <cmath>
#include <limits>

#include "trace/detail/json_string_scan.h"

namespace kh {

namespace {

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

bool ends_token(std::string_view text, std::size_t at) {
  if (at >= text.size()) return true;
  const char c = text[at];
  return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

std::optional<double> non_finite_from_text(std::string_view text) noexcept {
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (same_ignoring_case(text, "nan")) return std::numeric_limits<double>::quiet_NaN();
  if (same_ignoring_case(text, "inf") || same_ignoring_case(text, "infinity"))
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  return std::nullopt;
}

nlohmann::ordered_json number_json(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

std::string quote_non_finite_tokens(std::string_view text) {
  static constexpr std::array<std::string_view, 3> kTokens{"-Infinity", "Infinity", "NaN"};
  std::string out;
  out.reserve(text.size() + 16);
  detail::JsonStringScan scan;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (scan.in_string(c)) {
      out += c;
      ++i;
      continue;
    }
    bool replaced = false;
    for (std::string_view token : kTokens) {
      if (text.compare(i, token.size(), token) == 0 && ends_token(text, i + token.size())) {
        out += '"';
        out += token;
        out += '"';
        i += token.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace kh
