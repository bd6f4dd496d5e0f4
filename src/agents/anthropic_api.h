// The Anthropic messages API: POST {base_url}/v1/messages with x-api-key and
// anthropic-version headers; the reply's text blocks are joined.
#pragma once

#include "agents/chat_api.h"

namespace kh::agents {

class AnthropicApi final : public ChatApi {
 public:
  static constexpr const char* kVersion = "2023-06-01";
  [[nodiscard]] std::string provider() const override { return "anthropic"; }
  [[nodiscard]] HttpRequest request(const ChatSettings& s, const std::string& system,
                                    const std::string& prompt) const override;
  [[nodiscard]] ChatReply parse(const std::string& body) const override;
};

}  // namespace kh::agents
