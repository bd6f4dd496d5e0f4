#include "agents/openai_api.h"

#include <nlohmann/json.hpp>

#include "error/error.h"

namespace kh::agents {

HttpRequest OpenAiApi::request(const ChatSettings& s, const std::string& system,
                               const std::string& prompt) const {
  const nlohmann::json body = {
      {"model", s.model},
      {"messages", {{{"role", "system"}, {"content", system}}, {{"role", "user"}, {"content", prompt}}}},
      {"max_tokens", s.max_tokens},
      {"temperature", s.temperature}};
  HttpRequest r;
  r.url = s.base_url + "/chat/completions";
  r.headers = {{"Content-Type", "application/json"}};
  if (!s.api_key.empty()) r.headers.emplace_back("Authorization", "Bearer " + s.api_key);
  r.body = body.dump();
  return r;
}

ChatReply OpenAiApi::parse(const std::string& body) const {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  const Location where{"", 0, "openai reply"};
  if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() || j["choices"].empty()) {
    throw Error(where, "no choices[] in the reply");
  }
  const nlohmann::json& choice = j["choices"][0];
  if (!choice.contains("message") || !choice["message"].contains("content") ||
      !choice["message"]["content"].is_string()) {
    throw Error(where, "choices[0].message.content is not a string");
  }
  ChatReply reply;
  reply.text = choice["message"]["content"].get<std::string>();
  if (choice.contains("finish_reason") && choice["finish_reason"].is_string()) {
    reply.stop_reason = choice["finish_reason"].get<std::string>();
  }
  if (j.contains("usage") && j["usage"].is_object()) {
    const auto& u = j["usage"];
    if (u.contains("prompt_tokens") && u["prompt_tokens"].is_number_integer()) {
      reply.input_tokens = u["prompt_tokens"].get<std::int64_t>();
    }
    if (u.contains("completion_tokens") && u["completion_tokens"].is_number_integer()) {
      reply.output_tokens = u["completion_tokens"].get<std::int64_t>();
    }
  }
  return reply;
}

}  // namespace kh::agents
