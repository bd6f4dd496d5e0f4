#include "agents/agent_config.h"

#include <fmt/format.h>

#include "error/error.h"

namespace kh::agents {

ConfigReader::ConfigReader(nlohmann::json config, std::string agent)
    : config_(std::move(config)), agent_(std::move(agent)) {
  if (config_.is_null()) config_ = nlohmann::json::object();
  if (!config_.is_object()) throw Error(Location{"", 0, agent_}, "the agent config must be a JSON object");
}

Location ConfigReader::where(const std::string& key) const { return Location{"", 0, agent_ + "." + key}; }

const nlohmann::json* ConfigReader::find(const std::string& key) {
  read_.insert(key);
  const auto it = config_.find(key);
  return it == config_.end() || it->is_null() ? nullptr : &*it;
}

std::string ConfigReader::text(const std::string& key, const std::string& fallback) {
  const nlohmann::json* v = find(key);
  if (v == nullptr) return fallback;
  if (!v->is_string()) throw Error(where(key), "must be a string");
  return v->get<std::string>();
}

std::string ConfigReader::required_text(const std::string& key) {
  std::string v = text(key, "");
  if (v.empty()) throw Error(where(key), "is required");
  return v;
}

bool ConfigReader::boolean(const std::string& key, bool fallback) {
  const nlohmann::json* v = find(key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) throw Error(where(key), "must be true or false");
  return v->get<bool>();
}

double ConfigReader::number(const std::string& key, double fallback) {
  const nlohmann::json* v = find(key);
  if (v == nullptr) return fallback;
  if (!v->is_number()) throw Error(where(key), "must be a number");
  return v->get<double>();
}

std::int64_t ConfigReader::integer(const std::string& key, std::int64_t fallback, std::int64_t min) {
  const nlohmann::json* v = find(key);
  if (v == nullptr) return fallback;
  if (!v->is_number_integer() || v->get<std::int64_t>() < min) {
    throw Error(where(key), fmt::format("must be an integer of at least {}", min));
  }
  return v->get<std::int64_t>();
}

std::vector<std::string> ConfigReader::texts(const std::string& key, std::vector<std::string> fallback) {
  const nlohmann::json* v = find(key);
  if (v == nullptr) return fallback;
  std::vector<std::string> out;
  if (!v->is_array()) throw Error(where(key), "must be a list of strings");
  for (const auto& e : *v) {
    if (!e.is_string()) throw Error(where(key), "must be a list of strings");
    out.push_back(e.get<std::string>());
  }
  return out;
}

void ConfigReader::finish() const {
  for (const auto& [key, value] : config_.items()) {
    if (read_.count(key) == 0)
      throw Error(where(key), "unknown key for this agent (docs/agents.md lists them)");
  }
}

WorkspaceSettings read_workspace_settings(ConfigReader& r) {
  WorkspaceSettings s;
  s.skills = default_skill_sources();
  if (auto dir = r.text("skills_dir", ""); !dir.empty()) s.skills.skills_dir = dir;
  if (auto dir = r.text("operators_dir", ""); !dir.empty()) s.skills.operators_dir = dir;
  s.skills_budget = static_cast<std::size_t>(r.integer("skills_budget", 8000));
  s.limits.languages = r.texts("languages", {});
  s.limits.max_file_bytes =
      static_cast<std::size_t>(r.integer("max_file_bytes", std::int64_t{256} * 1024, 1));
  s.limits.max_candidate_bytes =
      static_cast<std::size_t>(r.integer("max_candidate_bytes", std::int64_t{1024} * 1024, 1));
  s.limits.max_files = static_cast<std::size_t>(r.integer("max_files", 16, 1));
  return s;
}

}  // namespace kh::agents
