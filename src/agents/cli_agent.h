// The cli agent: runs a configured command (a coding agent such as `claude -p` or
// `codex exec`, or any script) inside the prepared workspace, then reads its answer
// from out/. docs/agents.md has the recipes.
//
// The command runs with /bin/sh in the workspace, in its own process group, with a
// wall-clock limit (the whole group is killed at the limit), stdout and stderr captured
// up to a bound. Values of the configured secret variables are redacted from the
// transcript. Outcomes:
// - exit 0: out/ is read and validated (answer_validation.h);
// - exit 126 or 127 (cannot run, not found): kh::Error, the agent itself is broken;
// - any other exit, or the time limit: one RejectedAnswer with the reason and the end
//   of stderr; out/ is not read (a killed agent may leave half-written files).
// A cost note comes from the command when it leaves `cost.json` in the workspace
// ({"usd": 0.42, "input_tokens": N, "output_tokens": N}, all optional) or prints Claude
// Code's JSON result (--output-format json) on stdout; otherwise wall time only.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "agents/agent_config.h"

namespace kh::agents {

struct CliAgentConfig {
  std::string command;
  std::chrono::seconds timeout{0};  // 0: the request's timeout
  std::size_t capture_bytes = std::size_t{64} * 1024;
  std::vector<std::string> secret_env = {"OPENAI_API_KEY", "ANTHROPIC_API_KEY"};
  WorkspaceSettings workspace;
};

// Keys: command (required), timeout_s, capture_bytes, secret_env, and the workspace keys.
[[nodiscard]] CliAgentConfig read_cli_agent_config(const nlohmann::json& config);

class CliAgent final : public Agent {
 public:
  explicit CliAgent(CliAgentConfig config) : config_(std::move(config)) {}
  [[nodiscard]] std::string name() const override { return "cli"; }
  [[nodiscard]] Proposal propose(const ProposalContext& context) override;

 private:
  CliAgentConfig config_;
};

}  // namespace kh::agents
