// The workspace contract (docs/agents.md): one folder per generation request, holding
// everything an agent may read, and `out/` where it answers.
//
//     TASK.md          instructions: the goal, the hypothesis, the answer format, limits
//     definition.json  the definition (FlashInfer-Trace)
//     parent/          the retained best: solution.json and each source file
//     profile.md       the diagnosis report (when the controller has it in Markdown)
//     profile.json     the diagnosis report (JSON)
//     hypothesis.json  regime, direction, family, rationale, directive, stage, bounds
//     skills.md        the composed skills (skill_composer.h); absent when the request
//                      says no skills (ProposalContext::with_skills, an ablation arm)
//     history.json     earlier candidates of this loop, newest last
//     out/             empty; the answer goes here (answer_validation.h)
//
// Agents that need files (cli, openai, anthropic) write it at the start of propose();
// the controller only names the folder (ProposalContext::workspace).
#pragma once

#include <filesystem>
#include <string>

#include "agents/agent.h"
#include "agents/agent_config.h"
#include "agents/answer_validation.h"
#include "agents/skill_composer.h"

namespace kh::agents {

struct WorkspaceInputs {
  std::string skills_markdown;
  AnswerLimits limits;
};

// Writes the workspace into context.workspace, replacing the files above and emptying
// out/. Throws kh::Error when the folder cannot be written or a parent path is unsafe.
void write_workspace(const ProposalContext& context, const WorkspaceInputs& inputs);

// Composes the skills for the request (definition, hypothesis regime, stage, budget)
// and writes the workspace with them; returns the composition (what was left out).
ComposedSkills prepare_workspace(const ProposalContext& context, const WorkspaceSettings& settings);

[[nodiscard]] inline std::filesystem::path answer_dir(const std::filesystem::path& workspace) {
  return workspace / "out";
}

}  // namespace kh::agents
