// The agents of a loop as the command line names them: agent names (tuner, replay, cli,
// openai, anthropic), the replay agent's solutions and --agent-config entries. Shared by
// `kharness optimize` and `kharness ablate`.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agents/agent.h"
#include "archive/archive.h"
#include "trace/solution.h"

namespace kh::cli {

struct AgentChoice {
  std::vector<std::string> names;    // empty: tuner (replay when only `replay` is given)
  std::vector<std::string> replay;   // files or content id prefixes
  std::vector<std::string> configs;  // CONFIG for every configurable agent, or NAME=CONFIG
  std::optional<std::string> model;  // replaces the chat agents' "model" (an ablation arm's model=)
};

// Throws kh::Error naming the option for an unknown agent, a bad config, or replay
// without solutions.
[[nodiscard]] std::vector<std::shared_ptr<agents::Agent>> make_agents(const AgentChoice& choice,
                                                                      archive::Archive& store);

// A solution from a file, or from a unique prefix of an archived content id; with its
// exact JSON text. Throws kh::Error naming `field`.
[[nodiscard]] std::pair<Solution, std::string> solution_from(archive::Archive& store, const std::string& spec,
                                                             const std::string& field);

}  // namespace kh::cli
