// OpenAI-compatible chat completions (api.openai.com, vLLM, llama.cpp server, Ollama):
// POST {base_url}/chat/completions, "Authorization: Bearer KEY" when a key is set.
#pragma once

#include "agents/chat_api.h"

namespace kh::agents {

class OpenAiApi final : public ChatApi {
 public:
  [[nodiscard]] std::string provider() const override { return "openai"; }
  [[nodiscard]] HttpRequest request(const ChatSettings& s, const std::string& system,
                                    const std::string& prompt) const override;
  [[nodiscard]] ChatReply parse(const std::string& body) const override;
};

}  // namespace kh::agents
