#include "agents/chat_agent.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>

#include "agents/answer_validation.h"
#include "agents/chat_prompt.h"
#include "agents/fenced_answer.h"
#include "agents/redaction.h"
#include "agents/workspace.h"
#include "error/error.h"

namespace kh::agents {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kReplyExcerpt = 800;

std::chrono::milliseconds seconds_key(ConfigReader& r, const std::string& key, double fallback) {
  const double s = r.number(key, fallback);
  if (s <= 0) throw Error(Location{"", 0, key}, "must be positive");
  return std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000));
}

std::string cost_note(const std::string& provider, const std::string& model, const RetriedResponse& r,
                      const ChatReply& reply) {
  std::string note =
      fmt::format("{} {}: {} API call{}", provider, model, r.attempts, r.attempts == 1 ? "" : "s");
  if (r.rate_limited > 0)
    note += fmt::format(", {} retr{} after 429", r.rate_limited, r.rate_limited == 1 ? "y" : "ies");
  if (r.server_errors > 0) note += fmt::format(", {} after 5xx", r.server_errors);
  if (r.transport_errors > 0) note += fmt::format(", {} after network errors", r.transport_errors);
  if (r.waited_s > 0) note += fmt::format(" (waited {:.2f} s)", r.waited_s);
  note += fmt::format("; tokens in {} out {}", reply.input_tokens ? std::to_string(*reply.input_tokens) : "?",
                      reply.output_tokens ? std::to_string(*reply.output_tokens) : "?");
  return note;
}

void answer_from_reply(const ChatReply& reply, const ProposalContext& context, const std::string& agent,
                       const AnswerLimits& limits, Proposal& p) {
  const std::string excerpt = reply.text.substr(0, kReplyExcerpt);
  const FencedFiles files = parse_fenced_files(reply.text);
  if (files.problem || files.files.empty()) {
    p.rejected.push_back(
        {fmt::format("malformed output: {}{}",
                     files.problem.value_or("no code block names a file (```lang file=PATH)"),
                     reply.stop_reason.empty() ? "" : " [stop reason: " + reply.stop_reason + "]"),
         excerpt});
    return;
  }
  if (auto why = write_fenced_files(files.files, answer_dir(context.workspace))) {
    p.rejected.push_back({"malformed output: " + *why, excerpt});
    return;
  }
  AnswerReading answer = read_answer(answer_dir(context.workspace), context, agent, limits);
  p.candidates = std::move(answer.candidates);
  p.rejected = std::move(answer.rejected);
}

}  // namespace

ChatAgentConfig read_chat_agent_config(const std::string& provider, const nlohmann::json& config) {
  const bool anthropic = provider == "anthropic";
  ConfigReader r(config, provider);
  ChatAgentConfig c;
  c.chat.model = r.required_text("model");
  c.chat.base_url = r.text("base_url", anthropic ? "https://api.anthropic.com" : "https://api.openai.com/v1");
  while (!c.chat.base_url.empty() && c.chat.base_url.back() == '/') c.chat.base_url.pop_back();
  c.chat.max_tokens = r.integer("max_tokens", 8192, 1);
  c.chat.temperature = r.number("temperature", 0.2);
  c.api_key_env = r.text("api_key_env", anthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
  c.require_key = r.boolean("require_key", anthropic);
  c.connect_timeout = seconds_key(r, "connect_timeout_s", 10);
  c.request_timeout = seconds_key(r, "timeout_s", 600);
  c.retry.max_attempts = static_cast<int>(r.integer("max_attempts", 5, 1));
  c.retry.initial_backoff = seconds_key(r, "backoff_s", 1);
  c.retry.max_backoff = seconds_key(r, "backoff_max_s", 60);
  c.workspace = read_workspace_settings(r);
  r.finish();
  return c;
}

ChatAgent::ChatAgent(std::unique_ptr<ChatApi> api, ChatAgentConfig config)
    : api_(std::move(api)), config_(std::move(config)) {
  const char* key = std::getenv(config_.api_key_env.c_str());
  if (config_.require_key && (key == nullptr || *key == '\0')) {
    throw Error(Location{"", 0, name() + ".api_key_env"},
                fmt::format("set the API key in the environment variable {}", config_.api_key_env));
  }
}

Proposal ChatAgent::propose(const ProposalContext& context) {
  if (context.workspace.empty()) {
    throw Error(Location{"", 0, "workspace"}, name() + " agent needs a workspace folder for its answer");
  }
  const auto start = Clock::now();
  const ComposedSkills skills = prepare_workspace(context, config_.workspace);
  ChatSettings chat = config_.chat;
  if (const char* key = std::getenv(config_.api_key_env.c_str())) chat.api_key = key;
  if (config_.require_key && chat.api_key.empty()) {
    throw Error(Location{"", 0, name() + ".api_key_env"},
                fmt::format("set the API key in the environment variable {}", config_.api_key_env));
  }
  const std::vector<std::string> secrets = {chat.api_key};
  const std::string system = chat_system_prompt();
  const std::string prompt = chat_prompt(context, config_.workspace.limits);
  HttpRequest request = api_->request(chat, system, prompt);
  request.connect_timeout = config_.connect_timeout;
  request.total_timeout = config_.request_timeout;
  const RetriedResponse exchange =
      post_with_retries(request, config_.retry, start + context.timeout, secrets);
  const ChatReply reply = api_->parse(exchange.response.body);

  Proposal p;
  p.input_tokens = reply.input_tokens;
  p.output_tokens = reply.output_tokens;
  p.cost_note = cost_note(name(), chat.model, exchange, reply);
  std::string log;
  for (const auto& line : exchange.log) log += line + "\n";
  p.transcript = fmt::format(
      "# {} {} at {} (skills: {} included, {} left out)\n{}\n# system\n{}\n\n# prompt\n{}\n# response\n{}\n",
      name(), chat.model, request.url, skills.included.size(), skills.left_out.size(), log, system, prompt,
      reply.text);
  answer_from_reply(reply, context, name(), config_.workspace.limits, p);
  p.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  redact_proposal(p, secrets);
  std::ofstream(context.workspace / "transcript.md", std::ios::binary | std::ios::trunc) << p.transcript;
  // The reply's files in out/ are the model's words, which may repeat the key.
  scrub_workspace(context.workspace, secrets);
  return p;
}

}  // namespace kh::agents
