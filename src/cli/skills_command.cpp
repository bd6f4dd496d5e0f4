#include "cli/skills_command.h"

#include <fmt/format.h>

#include <memory>
#include <string>

#include "agents/skill_composer.h"
#include "agents/skill_library.h"
#include "cli/guarded_run.h"

namespace kh::cli {

namespace {

struct SkillsShowArgs {
  std::string definition;
  std::string regime;
  std::string stage;
  std::size_t budget = 0;
  std::string skills_dir;
  std::string operators_dir;
  bool json = false;
};

int show(const SkillsShowArgs& a) {
  agents::SkillSources sources = agents::default_skill_sources();
  if (!a.skills_dir.empty()) sources.skills_dir = a.skills_dir;
  if (!a.operators_dir.empty()) sources.operators_dir = a.operators_dir;
  const auto skills = agents::load_skills(sources);
  const agents::ComposedSkills composed =
      agents::compose_skills(skills, agents::SkillQuery{a.definition, a.regime, a.stage, a.budget});
  if (a.json) {
    nlohmann::ordered_json j = {
        {"definition", a.definition}, {"regime", a.regime}, {"stage", a.stage}, {"budget", a.budget}};
    j.update(composed.json());
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", composed.markdown);
  }
  fmt::print(stderr, "kharness skills: {} included (~{} tokens), {} left out for the budget\n",
             composed.included.size(), composed.tokens, composed.left_out.size());
  return 0;
}

}  // namespace

void register_skills(CLI::App& app, int& exit_code) {
  CLI::App* skills = app.add_subcommand("skills", "Skills composed into agents' workspaces and prompts");
  skills->require_subcommand(1);
  auto args = std::make_shared<SkillsShowArgs>();
  CLI::App* cmd = skills->add_subcommand("show", "Print the skills an agent would receive");
  cmd->add_option("--definition", args->definition, "Definition name")->required();
  cmd->add_option("--regime", args->regime, "Shape regime (small, large, outlier 1, ...); default any");
  cmd->add_option("--stage", args->stage, "explore or exploit; default any")
      ->check(CLI::IsMember({"explore", "exploit"}));
  cmd->add_option("--budget", args->budget, "Token budget for the whole text (estimated); 0 = none");
  cmd->add_option("--skills", args->skills_dir, "Folder of generic skills (default: the shipped skills/)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--operators", args->operators_dir, "Folder of operators with skill.md files")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--json", args->json, "Print the selection, order, budget and text as JSON");
  cmd->callback([args, &exit_code] { guarded_run(exit_code, [&] { return show(*args); }); });
}

}  // namespace kh::cli
