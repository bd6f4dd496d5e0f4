// Reading figures out of JSON the archive keeps (decision evidence, manifests) without
// trusting its shape: a missing key or a value of another type reads as absent, never
// as an exception, so a damaged or older record still reports.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kh::report {

[[nodiscard]] std::optional<double> number_at(const nlohmann::ordered_json& j, const char* key);
[[nodiscard]] std::string text_at(const nlohmann::ordered_json& j, const char* key);
// The array at `key`, or an empty one.
[[nodiscard]] const nlohmann::ordered_json& array_at(const nlohmann::ordered_json& j, const char* key);
// The object at `key`, or an empty one.
[[nodiscard]] const nlohmann::ordered_json& object_at(const nlohmann::ordered_json& j, const char* key);

}  // namespace kh::report
