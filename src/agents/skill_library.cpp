#include "agents/skill_library.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "error/error.h"
#include "eval/operator_library.h"
#include "worker/self_executable.h"

namespace kh::agents {

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error(Location{p.string(), 0, ""}, "cannot read skill file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

SkillSources default_skill_sources() {
  SkillSources s;
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("KHARNESS_SKILLS")) candidates.emplace_back(env);
  const std::filesystem::path exe = std::filesystem::path(self_executable()).parent_path();
  if (!exe.empty()) {
    candidates.push_back(exe / ".." / "skills");
    candidates.push_back(exe / "skills");
  }
  candidates.emplace_back("skills");
  for (const auto& c : candidates) {
    if (std::filesystem::is_directory(c)) {
      s.skills_dir = std::filesystem::weakly_canonical(c);
      break;
    }
  }
  s.operators_dir = OperatorLibrary::default_root();
  return s;
}

std::vector<Skill> load_skills(const SkillSources& sources) {
  std::vector<Skill> skills;
  if (sources.skills_dir) {
    for (const auto& e : std::filesystem::directory_iterator(*sources.skills_dir)) {
      if (!e.is_regular_file() || e.path().extension() != ".md" || e.path().filename() == "README.md")
        continue;
      skills.push_back(parse_skill(read_text(e.path()), e.path(), e.path().stem().string()));
    }
  }
  if (sources.operators_dir && std::filesystem::is_directory(*sources.operators_dir)) {
    for (const auto& e : std::filesystem::directory_iterator(*sources.operators_dir)) {
      const auto file = e.path() / "skill.md";
      if (!e.is_directory() || !std::filesystem::is_regular_file(file)) continue;
      skills.push_back(parse_skill(read_text(file), file, "operator:" + e.path().filename().string()));
    }
  }
  std::sort(skills.begin(), skills.end(), [](const Skill& a, const Skill& b) { return a.name < b.name; });
  return skills;
}

}  // namespace kh::agents
