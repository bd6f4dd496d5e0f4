// Agent configuration: a small JSON object per agent (a file given with --agent-config,
// or built from flags), read with typed getters. Keys that no getter read are errors,
// so a misspelt key never silently falls back to a default. docs/agents.md lists keys.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "agents/answer_validation.h"
#include "agents/skill_library.h"
#include "error/error.h"

namespace kh::agents {

class ConfigReader {
 public:
  ConfigReader(nlohmann::json config, std::string agent);

  [[nodiscard]] std::string text(const std::string& key, const std::string& fallback);
  [[nodiscard]] std::string required_text(const std::string& key);
  [[nodiscard]] bool boolean(const std::string& key, bool fallback);
  [[nodiscard]] double number(const std::string& key, double fallback);
  [[nodiscard]] std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min = 0);
  [[nodiscard]] std::vector<std::string> texts(const std::string& key, std::vector<std::string> fallback);
  // Throws kh::Error naming the first key no getter asked for.
  void finish() const;

 private:
  [[nodiscard]] const nlohmann::json* find(const std::string& key);
  [[nodiscard]] Location where(const std::string& key) const;
  nlohmann::json config_;
  std::string agent_;
  std::set<std::string> read_;
};

// What every workspace agent shares: where skills come from and how many tokens they
// may take, and the answer limits.
struct WorkspaceSettings {
  SkillSources skills;
  std::size_t skills_budget = 8000;
  AnswerLimits limits;
};

// Keys skills_dir, operators_dir, skills_budget, languages, max_file_bytes,
// max_candidate_bytes, max_files.
[[nodiscard]] WorkspaceSettings read_workspace_settings(ConfigReader& r);

}  // namespace kh::agents
