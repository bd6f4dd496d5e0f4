#include "agents/anthropic_api.h"

#include <nlohmann/json.hpp>

#include "error/error.h"

namespace kh::agents {

HttpRequest AnthropicApi::request(const ChatSettings& s, const std::string& system,
                                  const std::string& prompt) const {
  const nlohmann::json body = {{"model", s.model},
                               {"max_tokens", s.max_tokens},
                               {"temperature", s.temperature},
                               {"system", system},
                               {"messages", {{{"role", "user"}, {"content", prompt}}}}};
  HttpRequest r;
  r.url = s.base_url + "/v1/messages";
  r.headers = {{"Content-Type", "application/json"}, {"anthropic-version", kVersion}};
  if (!s.api_key.empty()) r.headers.emplace_back("x-api-key", s.api_key);
  r.body = body.dump();
  return r;
}

ChatReply AnthropicApi::parse(const std::string& body) const {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  const Location where{"", 0, "anthropic reply"};
  if (!j.is_object() || !j.contains("content") || !j["content"].is_array()) {
    throw Error(where, "no content[] in the reply");
  }
  ChatReply reply;
  for (const auto& block : j["content"]) {
    if (block.value("type", "") == "text" && block.contains("text") && block["text"].is_string()) {
      reply.text += block["text"].get<std::string>();
    }
  }
  if (j.contains("stop_reason") && j["stop_reason"].is_string())
    reply.stop_reason = j["stop_reason"].get<std::string>();
  if (j.contains("usage") && j["usage"].is_object()) {
    const auto& u = j["usage"];
    if (u.contains("input_tokens") && u["input_tokens"].is_number_integer()) {
      reply.input_tokens = u["input_tokens"].get<std::int64_t>();
    }
    if (u.contains("output_tokens") && u["output_tokens"].is_number_integer()) {
      reply.output_tokens = u["output_tokens"].get<std::int64_t>();
    }
  }
  return reply;
}

}  // namespace kh::agents
