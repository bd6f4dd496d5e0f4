// Agents by name: make_agent({"openai", config}) for the loop's --agent flag. Built in:
// tuner, cli, openai, anthropic. Replay is made by `kharness optimize` itself (its
// candidates come from files and the archive). Another agent joins with one
// register_agent() call: one new file and one registration line.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agents/agent.h"

namespace kh::agents {

struct AgentSpec {
  std::string name;                                  // "cli", "openai", "anthropic", ...
  nlohmann::json config = nlohmann::json::object();  // the agent's JSON config
};

using AgentMaker = std::function<std::unique_ptr<Agent>(const nlohmann::json& config)>;

// Adds or replaces the maker for `name`.
void register_agent(const std::string& name, AgentMaker maker);

// Throws kh::Error for an unknown name (listing the known ones) or a bad config.
[[nodiscard]] std::unique_ptr<Agent> make_agent(const AgentSpec& spec);

[[nodiscard]] std::vector<std::string> agent_names();

// `config` is inline JSON ("{...}") or the path of a JSON file; empty: {}.
[[nodiscard]] AgentSpec agent_spec(const std::string& name, const std::string& config);

}  // namespace kh::agents
