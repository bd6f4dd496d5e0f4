// The prompt of the HTTP agents, built from the prepared workspace: the task with the
// fenced-block answer format, then each workspace file under its own heading, so the
// model reads exactly what a coding agent would find on disk.
#pragma once

#include <filesystem>
#include <string>

#include "agents/agent.h"
#include "agents/answer_validation.h"

namespace kh::agents {

// The system message: the role and the one rule about the answer's form.
[[nodiscard]] std::string chat_system_prompt();

[[nodiscard]] std::string chat_prompt(const ProposalContext& context, const AnswerLimits& limits);

}  // namespace kh::agents
