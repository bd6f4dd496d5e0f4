// A scripted chat API on 127.0.0.1 (ephemeral port) for tests: each POST gets the next
// reply of its script (the last one repeats), and every request is recorded. It speaks
// whichever API the replies are shaped for (openai_body / anthropic_body).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace httplib {
class Server;
}

namespace kh::agents::test {

struct ScriptedReply {
  ScriptedReply(int status_ = 200, std::string body_ = {},  // NOLINT(google-explicit-constructor)
                std::vector<std::pair<std::string, std::string>> headers_ = {},
                std::chrono::milliseconds delay_ = std::chrono::milliseconds(0))
      : status(status_), body(std::move(body_)), headers(std::move(headers_)), delay(delay_) {}
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds delay{0};
};

struct ReceivedRequest {
  std::string path;
  std::map<std::string, std::string> headers;  // names lower-case
  std::string body;
};

// Answers a request from what it holds (e.g. whether the prompt carries the skills).
using ScriptedResponder = std::function<ScriptedReply(const ReceivedRequest&)>;

class ScriptedChatServer {
 public:
  explicit ScriptedChatServer(std::vector<ScriptedReply> script);
  explicit ScriptedChatServer(ScriptedResponder responder);
  ~ScriptedChatServer();
  ScriptedChatServer(const ScriptedChatServer&) = delete;
  ScriptedChatServer& operator=(const ScriptedChatServer&) = delete;

  [[nodiscard]] std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] std::vector<ReceivedRequest> requests() const;

 private:
  ScriptedReply next(const ReceivedRequest& request);
  void serve();

  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::vector<ScriptedReply> script_;
  ScriptedResponder responder_;
  std::size_t served_ = 0;
  std::vector<ReceivedRequest> received_;
};

// Reply bodies in each API's shape, with token counts.
[[nodiscard]] std::string openai_body(const std::string& text, int input_tokens, int output_tokens);
[[nodiscard]] std::string anthropic_body(const std::string& text, int input_tokens, int output_tokens);

// A model's answer text: prose, a manifest block and a source block for one candidate
// in `folder`, using one of the kernels in tests/agents/answers/rmsnorm_h128/.
[[nodiscard]] std::string rmsnorm_answer(const std::string& folder, const std::string& kernel_file,
                                         const std::string& entry_function, const std::string& family);

}  // namespace kh::agents::test
