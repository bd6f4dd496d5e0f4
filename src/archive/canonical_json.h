// The content id of a JSON document: SHA-256 of its canonical form (keys sorted, no
// whitespace), so that the same definition, workload or solution written with other
// spacing or key order is recognised as the same thing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kh::archive {

// Throws kh::Error when the text is not JSON.
[[nodiscard]] std::string canonical_hash(std::string_view json_text);
[[nodiscard]] std::string canonical_value_hash(const nlohmann::ordered_json& value);

}  // namespace kh::archive
