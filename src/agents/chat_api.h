// A chat API's wire format: how a prompt becomes an HTTP request and how the reply's
// text and token counts are read back. One implementation per provider (openai_api,
// anthropic_api); ChatAgent does the rest (workspace, retries, answer, redaction).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "agents/http_client.h"

namespace kh::agents {

struct ChatSettings {
  std::string base_url;
  std::string model;
  std::int64_t max_tokens = 8192;
  double temperature = 0.2;
  std::string api_key;  // from the environment; empty when none is set
};

struct ChatReply {
  std::string text;
  std::optional<std::int64_t> input_tokens;
  std::optional<std::int64_t> output_tokens;
  std::string stop_reason;
};

class ChatApi {
 public:
  virtual ~ChatApi() = default;
  [[nodiscard]] virtual std::string provider() const = 0;  // "openai", "anthropic"
  // URL, headers (with the key) and JSON body; timeouts are set by the caller.
  [[nodiscard]] virtual HttpRequest request(const ChatSettings& s, const std::string& system,
                                            const std::string& prompt) const = 0;
  // Throws kh::Error when the body is not a reply of this API.
  [[nodiscard]] virtual ChatReply parse(const std::string& body) const = 0;
};

}  // namespace kh::agents
