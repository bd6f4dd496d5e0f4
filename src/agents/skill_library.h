// Where skills come from: generic skills in a `skills/` folder (every *.md there) and
// per-operator skills in `operators/<definition>/skill.md`.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "agents/skill.h"

namespace kh::agents {

struct SkillSources {
  std::optional<std::filesystem::path> skills_dir;     // generic skills; none when absent
  std::optional<std::filesystem::path> operators_dir;  // operators/<name>/skill.md
};

// The shipped folders: $KHARNESS_SKILLS, then skills/ beside or above the executable,
// then ./skills; operators through OperatorLibrary::default_root().
[[nodiscard]] SkillSources default_skill_sources();

// Every skill of both sources, sorted by name. Generic skills are named by their file
// stem, operator skills "operator:<folder>". Throws kh::Error on a malformed file.
[[nodiscard]] std::vector<Skill> load_skills(const SkillSources& sources);

}  // namespace kh::agents
