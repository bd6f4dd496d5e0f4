#include "trace/json_text.h"

#include <cstddef>
#include <string>

#include "trace/detail/json_string_scan.h"
#include "trace/non_finite.h"

namespace kh {
namespace {

constexpr std::size_t kMaxDepth = 256;

struct TextPosition {
  std::size_t line = 1;
  std::size_t column = 1;
};

TextPosition position_of(std::string_view text, std::size_t offset) {
  TextPosition p;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}

// Returns the offset where nesting first exceeds kMaxDepth, or npos. Brackets inside
// strings do not count.
std::size_t too_deep_at(std::string_view text) {
  std::size_t depth = 0;
  detail::JsonStringScan scan;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (scan.in_string(c)) continue;
    if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

Error located_error(std::string_view text, const Location& where, std::size_t offset,
                    const std::string& why) {
  const TextPosition p = position_of(text, offset);
  Location at = where;
  // For a JSONL line the file line is already set; for a whole file, use the text's line.
  if (at.line == 0) at.line = p.line;
  const std::string place = where.line == 0
                                ? "line " + std::to_string(p.line) + ", column " + std::to_string(p.column)
                                : "column " + std::to_string(p.column);
  return Error(at, "invalid JSON at " + place + " (byte " + std::to_string(offset) + "): " + why);
}

// nlohmann's message starts "[json.exception.parse_error.101] parse error at line 1, column 5: ";
// keep only what follows, since we print our own position.
std::string short_reason(const std::string& what) {
  const auto at = what.find("parse error");
  if (at == std::string::npos) return what;
  const auto colon = what.find(": ", at);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

ordered_json parse_json_text(std::string_view text, const Location& where) {
  if (const std::size_t deep = too_deep_at(text); deep != std::string_view::npos)
    throw located_error(text, where, deep, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  try {
    return ordered_json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // NaN and Infinity as bare tokens (Python's json writes them): read as the strings
    // flashinfer-bench writes for them, which the field readers take as numbers.
    if (text.find("NaN") != std::string_view::npos || text.find("Infinity") != std::string_view::npos) {
      ordered_json quoted =
          ordered_json::parse(quote_non_finite_tokens(text), nullptr, /*allow_exceptions=*/false);
      if (!quoted.is_discarded()) return quoted;
    }
    const std::size_t offset = e.byte == 0 ? 0 : e.byte - 1;
    throw located_error(text, where, offset, short_reason(e.what()));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number too large for a double (e.g. 1e99999): nlohmann reports it without a position.
    throw Error(where, std::string("invalid JSON: ") + e.what());
  }
}

std::string dump_compact(const ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string dump_indented(const ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace kh
