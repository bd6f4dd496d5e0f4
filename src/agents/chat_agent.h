// The HTTP agents: `openai` (chat completions, any compatible server) and `anthropic`
// (messages API). One request per proposal: the prompt is built from the prepared
// workspace (chat_prompt.h), sent with retries (retrying_post.h), and the reply's
// fenced code blocks (fenced_answer.h) are written into out/ and validated like any
// other answer. A reply without usable blocks is a RejectedAnswer ("malformed output").
// The API key comes from the environment only and is redacted from everything kept.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "agents/agent.h"
#include "agents/agent_config.h"
#include "agents/chat_api.h"
#include "agents/retrying_post.h"

namespace kh::agents {

struct ChatAgentConfig {
  ChatSettings chat;  // api_key left empty: read at each proposal
  std::string api_key_env;
  bool require_key = false;
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds request_timeout{600000};
  RetryPolicy retry;
  WorkspaceSettings workspace;
};

// Keys: model (required), base_url, max_tokens, temperature, api_key_env, require_key,
// connect_timeout_s, timeout_s, max_attempts, backoff_s, backoff_max_s, and the
// workspace keys. Defaults per provider (docs/agents.md).
[[nodiscard]] ChatAgentConfig read_chat_agent_config(const std::string& provider,
                                                     const nlohmann::json& config);

class ChatAgent final : public Agent {
 public:
  // Throws kh::Error when the config requires a key and its variable is unset, so a
  // loop fails before its first round rather than at its first proposal.
  ChatAgent(std::unique_ptr<ChatApi> api, ChatAgentConfig config);
  [[nodiscard]] std::string name() const override { return api_->provider(); }
  [[nodiscard]] Proposal propose(const ProposalContext& context) override;

 private:
  std::unique_ptr<ChatApi> api_;
  ChatAgentConfig config_;
};

}  // namespace kh::agents
