#include "cli/agent_choice.h"

#include <filesystem>

#include "agents/agent_factory.h"
#include "agents/replay_agent.h"
#include "agents/tuner_agent.h"
#include "archive/set_files.h"
#include "control/loop_state.h"
#include "error/error.h"
#include "trace/json_io.h"

namespace kh::cli {
namespace {

// --agent-config NAME=CONFIG names its agent; a plain CONFIG serves every agent that has
// no NAME= entry. CONFIG is a JSON file or inline JSON (docs/agents.md).
std::string agent_config_for(const std::vector<std::string>& configs, const std::string& agent) {
  std::string plain;
  for (const std::string& c : configs) {
    const auto eq = c.find('=');
    const bool named = eq != std::string::npos && c.find_first_of("{/.") > eq;
    if (named && c.substr(0, eq) == agent) return c.substr(eq + 1);
    if (!named) plain = c;
  }
  return plain;
}

std::shared_ptr<agents::Agent> replay_agent(const AgentChoice& choice, archive::Archive& store) {
  if (choice.replay.empty())
    throw Error(Location{"", 0, "--replay"}, "the replay agent needs --replay FILE|ID...");
  std::vector<agents::ReplayItem> items;
  for (const std::string& spec : choice.replay) {
    auto [s, text] = solution_from(store, spec, "--replay");
    items.push_back(agents::ReplayItem{std::move(s), "replay", spec});
  }
  return std::make_shared<agents::ReplayAgent>(std::move(items));
}

}  // namespace

std::pair<Solution, std::string> solution_from(archive::Archive& store, const std::string& spec,
                                               const std::string& field) {
  std::string text;
  std::string where = spec;
  std::error_code ec;  // a path too long for the file system is not a file: look it up as an id
  if (std::filesystem::is_regular_file(spec, ec)) {
    text = archive::read_file_text(spec);
  } else {
    const std::string id = control::resolve_content_id(store, spec, field);
    text = control::archived_solution_text(store, id);
    where = "archive:" + id;
  }
  return {parse_solution(text, Location{where, 0, ""}), text};
}

std::vector<std::shared_ptr<agents::Agent>> make_agents(const AgentChoice& choice, archive::Archive& store) {
  std::vector<std::string> names = choice.names;
  if (names.empty()) names.emplace_back(choice.replay.empty() ? "tuner" : "replay");
  std::vector<std::shared_ptr<agents::Agent>> out;
  for (const std::string& n : names) {
    const bool chat = n == "openai" || n == "anthropic";
    if (choice.model && !chat) {
      throw Error(Location{"", 0, "model"}, "model= applies to the openai and anthropic agents, not " + n);
    }
    if (n == "tuner") {
      out.push_back(std::make_shared<agents::TunerAgent>());
    } else if (n == "replay") {
      out.push_back(replay_agent(choice, store));
    } else {
      agents::AgentSpec spec = agents::agent_spec(n, agent_config_for(choice.configs, n));
      if (choice.model) spec.config["model"] = *choice.model;
      out.push_back(agents::make_agent(spec));
    }
  }
  return out;
}

}  // namespace kh::cli
