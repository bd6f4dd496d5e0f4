// Turns JSON text into a JSON value, with errors that say where the text went wrong.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "error/error.h"

namespace kh {

using ordered_json = nlohmann::ordered_json;

// Parses one JSON document. `where` names the file (and the line, for one JSONL line);
// on bad input throws kh::Error whose reason has the line, column and byte offset, and
// whose Location.line is the line in the file. Nesting deeper than 256 levels is refused
// (nothing in the format nests past 5, and deep trees overflow the stack elsewhere).
[[nodiscard]] ordered_json parse_json_text(std::string_view text, const Location& where);

// Compact one-line form for JSONL, and the 2-space-indented form (with a final newline)
// for .json files. Key order is the value's own.
[[nodiscard]] std::string dump_compact(const ordered_json& j);
[[nodiscard]] std::string dump_indented(const ordered_json& j);

}  // namespace kh
