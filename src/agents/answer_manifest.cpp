#include "agents/answer_manifest.h"

#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>

#include "error/error.h"

namespace kh::agents {

namespace {

constexpr std::array<std::string_view, 7> kKeys = {"family",  "hypothesis", "language",   "entry_point",
                                                   "sources", "name",       "description"};

std::string text_field(const nlohmann::json& j, const char* key, bool required, const std::string& file) {
  if (!j.contains(key)) {
    if (required) throw Error(Location{file, 0, key}, "missing (required)");
    return {};
  }
  if (!j[key].is_string()) throw Error(Location{file, 0, key}, "must be a string");
  std::string v = j[key].get<std::string>();
  if (required && v.empty()) throw Error(Location{file, 0, key}, "is empty");
  return v;
}

}  // namespace

AnswerManifest parse_answer_manifest(std::string_view text, const std::string& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(Location{file, 0, ""}, fmt::format("not valid JSON: {}", e.what()));
  }
  if (!j.is_object()) throw Error(Location{file, 0, ""}, "must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      throw Error(Location{file, 0, key},
                  "unknown key (known: family, hypothesis, language, entry_point, "
                  "sources, name, description)");
    }
  }
  AnswerManifest m;
  m.family = text_field(j, "family", true, file);
  m.hypothesis = text_field(j, "hypothesis", true, file);
  m.language = text_field(j, "language", true, file);
  m.entry_point = text_field(j, "entry_point", true, file);
  m.name = text_field(j, "name", false, file);
  m.description = text_field(j, "description", false, file);
  if (!j.contains("sources") || !j["sources"].is_array() || j["sources"].empty()) {
    throw Error(Location{file, 0, "sources"}, "must be a non-empty list of file paths");
  }
  for (const auto& s : j["sources"]) {
    if (!s.is_string()) throw Error(Location{file, 0, "sources"}, "every entry must be a string");
    m.sources.push_back(s.get<std::string>());
  }
  return m;
}

}  // namespace kh::agents
