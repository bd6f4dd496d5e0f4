// The skill composer: picks the skills that apply to a generation request, orders them
// and keeps them within a token budget.
//
// Order: priority, highest first; ties go to operator-specific skills (no wildcard in
// `operators`), then to the name. Budget: whole skills are dropped, lowest priority
// first, until the rest fits; a skill is never cut in half, and what was left out is
// listed (name, priority, estimated tokens) at the end of the text so a reader sees it.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agents/skill.h"

namespace kh::agents {

struct SkillQuery {
  std::string definition;
  std::string regime;      // empty or "all": any
  std::string stage;       // empty: any
  std::size_t budget = 0;  // estimated tokens for the whole text; 0: no limit
};

struct ComposedSkill {
  std::string name;
  std::string path;
  int priority = 0;
  std::size_t tokens = 0;
};

struct ComposedSkills {
  std::vector<ComposedSkill> included;  // in prompt order
  std::vector<ComposedSkill> left_out;  // applied, but over the budget
  std::string markdown;                 // the text an agent receives
  std::size_t tokens = 0;               // estimate for `markdown`

  [[nodiscard]] nlohmann::ordered_json json() const;
};

// A deliberately simple, conservative estimate: one token per 4 bytes, rounded up.
// Real tokenisers give about 3.5 to 4.5 bytes a token on English and code.
[[nodiscard]] std::size_t estimate_tokens(std::string_view text);

[[nodiscard]] ComposedSkills compose_skills(const std::vector<Skill>& skills, const SkillQuery& query);

}  // namespace kh::agents
