#include "scripted_chat_server.h"

#include <httplib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace kh::agents::test {

ScriptedChatServer::ScriptedChatServer(std::vector<ScriptedReply> script)
    : server_(std::make_unique<httplib::Server>()), script_(std::move(script)) {
  serve();
}

ScriptedChatServer::ScriptedChatServer(ScriptedResponder responder)
    : server_(std::make_unique<httplib::Server>()), responder_(std::move(responder)) {
  serve();
}

void ScriptedChatServer::serve() {
  server_->Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
    ReceivedRequest r{req.path, {}, req.body};
    for (const auto& [name, value] : req.headers) {
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.headers[lower] = value;
    }
    ScriptedReply reply;
    {
      const std::lock_guard lock(mutex_);
      reply = next(r);
      received_.push_back(std::move(r));
    }
    if (reply.delay.count() > 0) std::this_thread::sleep_for(reply.delay);
    res.status = reply.status;
    for (const auto& [name, value] : reply.headers) res.set_header(name, value);
    res.set_content(reply.body, "application/json");
  });
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("scripted server: cannot bind 127.0.0.1");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

ScriptedChatServer::~ScriptedChatServer() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

ScriptedReply ScriptedChatServer::next(const ReceivedRequest& request) {
  if (responder_) return responder_(request);
  const std::size_t i = std::min(served_, script_.size() - 1);
  ++served_;
  return script_[i];
}

std::vector<ReceivedRequest> ScriptedChatServer::requests() const {
  const std::lock_guard lock(mutex_);
  return received_;
}

std::string openai_body(const std::string& text, int input_tokens, int output_tokens) {
  return nlohmann::json{
      {"id", "chatcmpl-scripted"},
      {"object", "chat.completion"},
      {"choices",
       {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}}},
      {"usage",
       {{"prompt_tokens", input_tokens},
        {"completion_tokens", output_tokens},
        {"total_tokens", input_tokens + output_tokens}}}}
      .dump();
}

std::string anthropic_body(const std::string& text, int input_tokens, int output_tokens) {
  return nlohmann::json{{"id", "msg_scripted"},
                        {"type", "message"},
                        {"role", "assistant"},
                        {"content", {{{"type", "text"}, {"text", text}}}},
                        {"stop_reason", "end_turn"},
                        {"usage", {{"input_tokens", input_tokens}, {"output_tokens", output_tokens}}}}
      .dump();
}

std::string rmsnorm_answer(const std::string& folder, const std::string& kernel_file,
                           const std::string& entry_function, const std::string& family) {
  std::ifstream in(std::string(KHARNESS_SOURCE_DIR) + "/tests/agents/answers/rmsnorm_h128/" + kernel_file);
  if (!in) throw std::runtime_error("no answer kernel " + kernel_file);
  std::ostringstream kernel;
  kernel << in.rdbuf();
  const nlohmann::json manifest = {{"family", family},
                                   {"hypothesis", "scripted: " + kernel_file},
                                   {"language", "cpp"},
                                   {"entry_point", "kernel.cpp::" + entry_function},
                                   {"sources", {"kernel.cpp"}}};
  return "Here is my candidate.\n\n```json file=" + folder + "/manifest.json\n" + manifest.dump(2) +
         "\n```\n\n```cpp file=" + folder + "/kernel.cpp\n" + kernel.str() + "```\n\nIt should be faster.\n";
}

}  // namespace kh::agents::test
