#include "agents/agent_factory.h"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <mutex>

#include "agents/anthropic_api.h"
#include "agents/chat_agent.h"
#include "agents/cli_agent.h"
#include "agents/openai_api.h"
#include "agents/tuner_agent.h"
#include "error/error.h"
#include "trace/bounded_file.h"

namespace kh::agents {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, AgentMaker> makers;
};

Registry& registry() {
  static Registry r;
  static std::once_flag built_ins;
  std::call_once(built_ins, [] {
    r.makers["tuner"] = [](const nlohmann::json& c) {
      ConfigReader(c, "tuner").finish();  // no keys
      return std::make_unique<TunerAgent>();
    };
    r.makers["cli"] = [](const nlohmann::json& c) {
      return std::make_unique<CliAgent>(read_cli_agent_config(c));
    };
    r.makers["openai"] = [](const nlohmann::json& c) {
      return std::make_unique<ChatAgent>(std::make_unique<OpenAiApi>(), read_chat_agent_config("openai", c));
    };
    r.makers["anthropic"] = [](const nlohmann::json& c) {
      return std::make_unique<ChatAgent>(std::make_unique<AnthropicApi>(),
                                         read_chat_agent_config("anthropic", c));
    };
  });
  return r;
}

}  // namespace

void register_agent(const std::string& name, AgentMaker maker) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  r.makers[name] = std::move(maker);
}

std::unique_ptr<Agent> make_agent(const AgentSpec& spec) {
  Registry& r = registry();
  AgentMaker maker;
  {
    const std::lock_guard lock(r.mutex);
    const auto it = r.makers.find(spec.name);
    if (it == r.makers.end()) {
      std::vector<std::string> known;
      for (const auto& [name, m] : r.makers) known.push_back(name);
      throw Error(Location{"", 0, "agent"},
                  fmt::format("unknown agent '{}' (known: {})", spec.name, fmt::join(known, ", ")));
    }
    maker = it->second;
  }
  return maker(spec.config);
}

std::vector<std::string> agent_names() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, m] : r.makers) names.push_back(name);
  return names;
}

AgentSpec agent_spec(const std::string& name, const std::string& config) {
  AgentSpec spec{name, nlohmann::json::object()};
  if (config.empty()) return spec;
  std::string text = config;
  const bool inline_json = config.find_first_not_of(" \t\n") != std::string::npos &&
                           config[config.find_first_not_of(" \t\n")] == '{';
  if (!inline_json) {
    text = read_json_document(config);
  }
  spec.config = nlohmann::json::parse(text, nullptr, false);
  if (spec.config.is_discarded() || !spec.config.is_object()) {
    throw Error(Location{inline_json ? "" : config, 0, "--agent-config"}, "not a JSON object");
  }
  return spec;
}

}  // namespace kh::agents
