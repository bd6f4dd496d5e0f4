#include "agents/workspace.h"

#include <fmt/format.h>

#include <fstream>

#include "agents/answer_paths.h"
#include "agents/task_text.h"
#include "error/error.h"
#include "trace/json_io.h"

namespace kh::agents {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kHistoryShown = 20;

void write_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw Error(Location{file.string(), 0, ""}, "cannot write the workspace file");
}

nlohmann::ordered_json hypothesis_json(const ProposalContext& c) {
  const Hypothesis& h = c.hypothesis;
  return {{"regime", h.regime},
          {"direction", h.direction},
          {"family", h.family},
          {"rationale", h.rationale},
          {"directive", h.directive},
          {"stage", c.stage},
          {"max_candidates", c.max_candidates},
          {"timeout_seconds", c.timeout.count()}};
}

nlohmann::ordered_json history_json(const ProposalContext& c) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  const std::size_t first = c.history.size() > kHistoryShown ? c.history.size() - kHistoryShown : 0;
  for (std::size_t i = first; i < c.history.size(); ++i) {
    list.push_back({{"name", c.history[i].name}, {"description", c.history[i].description}});
  }
  return list;
}

void write_parent(const fs::path& dir, const Solution& parent) {
  write_file(dir / "solution.json", write_solution(parent));
  for (const SourceFile& f : parent.sources) {
    if (auto why = path_problem(f.path)) {
      throw Error(Location{"", 0, "parent.sources"}, fmt::format("source path '{}' {}", f.path, *why));
    }
    write_file(dir / f.path, f.content);
  }
}

}  // namespace

void write_workspace(const ProposalContext& c, const WorkspaceInputs& in) {
  if (c.workspace.empty()) throw Error(Location{"", 0, "workspace"}, "no workspace folder given");
  const fs::path ws = c.workspace;
  std::error_code ec;
  fs::remove_all(ws / "out", ec);
  fs::remove_all(ws / "parent", ec);
  fs::remove(ws / "profile.md", ec);
  fs::remove(ws / "skills.md", ec);
  fs::create_directories(ws / "out", ec);
  if (ec) throw Error(Location{ws.string(), 0, ""}, "cannot create the workspace: " + ec.message());
  write_file(ws / "TASK.md", task_markdown(c, in.limits, AnswerChannel::files));
  write_file(ws / "definition.json", write_definition(c.definition));
  write_parent(ws / "parent", c.parent);
  write_file(ws / "profile.json", c.evidence.dump(2) + "\n");
  if (!c.evidence_markdown.empty()) write_file(ws / "profile.md", c.evidence_markdown);
  write_file(ws / "hypothesis.json", hypothesis_json(c).dump(2) + "\n");
  if (c.with_skills) write_file(ws / "skills.md", in.skills_markdown);
  write_file(ws / "history.json", history_json(c).dump(2) + "\n");
}

}  // namespace kh::agents

namespace kh::agents {

ComposedSkills prepare_workspace(const ProposalContext& c, const WorkspaceSettings& settings) {
  if (!c.with_skills) {
    write_workspace(c, WorkspaceInputs{"", settings.limits});
    return {};
  }
  ComposedSkills skills =
      compose_skills(load_skills(settings.skills),
                     SkillQuery{c.definition.name, c.hypothesis.regime, c.stage, settings.skills_budget});
  write_workspace(c, WorkspaceInputs{skills.markdown, settings.limits});
  return skills;
}

}  // namespace kh::agents
