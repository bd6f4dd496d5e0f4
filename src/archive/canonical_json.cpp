#include "archive/canonical_json.h"

#include "base/sha256.h"
#include "error/error.h"
#include "trace/non_finite.h"

namespace kh::archive {

std::string canonical_hash(std::string_view json_text) {
  // nlohmann::json keeps objects in std::map, so dump() writes keys sorted.
  nlohmann::json sorted = nlohmann::json::parse(json_text, nullptr, false);
  // Bare NaN/Infinity (Python's json writes them) hash as the strings upstream writes.
  if (sorted.is_discarded())
    sorted = nlohmann::json::parse(quote_non_finite_tokens(json_text), nullptr, false);
  if (sorted.is_discarded()) throw Error(Location{"", 0, ""}, "not JSON, cannot compute its content id");
  return sha256_hex(sorted.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string canonical_value_hash(const nlohmann::ordered_json& value) {
  return canonical_hash(
      std::string_view(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

}  // namespace kh::archive
