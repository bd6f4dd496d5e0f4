// Parsing into nlohmann::ordered_json without its quadratic copying.
//
// ordered_json keeps an object's members in a std::vector of pair<const std::string,
// json>. That pair cannot be moved without the risk of a throw (its key is const), so
// each time the vector grows it deep-copies every member parsed so far: a worker's
// timing reply (12 KB, its large arrays early) parsed 1.5-3x slower than into the
// std::map-based json. This parser collects an object's members where they can be
// moved and builds the object once, at its size. Same result as ordered_json::parse
// (a repeated key keeps its first place and its last value); no recursion, so no depth
// limit to overflow the stack.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace kh {

// The document, or nullopt when `text` is not one valid JSON value.
[[nodiscard]] std::optional<nlohmann::ordered_json> parse_ordered_json(std::string_view text);

}  // namespace kh
