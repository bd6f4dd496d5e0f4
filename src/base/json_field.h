// Reading an optional field of a JSON object into a typed value: absent or null keeps
// `out` as it is; a value of the wrong type is a kh::Error naming `where`.`key`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "error/error.h"

namespace kh {

template <class T>
void read_optional_field(const nlohmann::ordered_json& j, std::string_view where, const char* key, T& out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  try {
    out = it->get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(Location{"", 0, std::string(where) + "." + key}, std::string("wrong type: ") + e.what());
  }
}

}  // namespace kh
