// TASK.md: what an agent is asked to do for one generation request, and how to answer.
// The same text opens the HTTP agents' prompt, with the answer format for fenced code
// blocks instead of files in out/.
#pragma once

#include <string>

#include "agents/agent.h"
#include "agents/answer_validation.h"

namespace kh::agents {

enum class AnswerChannel {
  files,   // write out/<name>/manifest.json and sources (cli agent)
  fenced,  // reply with fenced code blocks naming their files (HTTP agents)
};

[[nodiscard]] std::string task_markdown(const ProposalContext& context, const AnswerLimits& limits,
                                        AnswerChannel channel);

}  // namespace kh::agents
