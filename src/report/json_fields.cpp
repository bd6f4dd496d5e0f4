#include "report/json_fields.h"

namespace kh::report {

using nlohmann::ordered_json;

std::optional<double> number_at(const ordered_json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string text_at(const ordered_json& j, const char* key) {
  if (!j.is_object()) return {};
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const ordered_json& array_at(const ordered_json& j, const char* key) {
  static const ordered_json empty = ordered_json::array();
  if (!j.is_object()) return empty;
  const auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

const ordered_json& object_at(const ordered_json& j, const char* key) {
  static const ordered_json empty = ordered_json::object();
  if (!j.is_object()) return empty;
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : empty;
}

}  // namespace kh::report
