// The openai and anthropic agents against scripted servers on 127.0.0.1: answers,
// retries with backoff, clear failures, timeouts, token counts, and no key anywhere.
#include "agents/chat_agent.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "agents/agent_factory.h"
#include "answer_fixture.h"
#include "error/error.h"
#include "scripted_chat_server.h"
#include "support/temp_dir.h"

namespace kh::agents {
namespace {

using test::ScriptedChatServer;
using Clock = std::chrono::steady_clock;

constexpr const char* kKeyEnv = "KH_SCRIPTED_API_KEY";
constexpr const char* kSentinel = "sk-SENTINEL-7f3a9c1e5b2d4680-never-log-me";

// The message of the kh::Error `f` throws, or "(no error)".
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

class ChatAgentTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ::setenv(kKeyEnv, kSentinel, 1); }
  void TearDown() override { ::unsetenv(kKeyEnv); }

  [[nodiscard]] bool anthropic() const { return GetParam() == "anthropic"; }
  [[nodiscard]] std::string body(const std::string& text, int in = 1200, int out = 340) const {
    return anthropic() ? test::anthropic_body(text, in, out) : test::openai_body(text, in, out);
  }
  std::unique_ptr<Agent> make(const ScriptedChatServer& server,
                              const nlohmann::json& extra = nlohmann::json::object()) {
    nlohmann::json config = {{"base_url", server.base_url()},
                             {"model", "scripted-1"},
                             {"api_key_env", kKeyEnv},
                             {"backoff_s", 0.01},
                             {"backoff_max_s", 0.05},
                             {"timeout_s", 10},
                             {"skills_dir", std::string(KHARNESS_SOURCE_DIR) + "/skills"},
                             {"operators_dir", std::string(KHARNESS_SOURCE_DIR) + "/operators"}};
    config.update(extra);
    return make_agent({GetParam(), config});
  }
  [[nodiscard]] std::string expected_path() const {
    return anthropic() ? "/v1/messages" : "/chat/completions";
  }

  // Every file under the workspace, read whole: none may hold the key.
  void expect_no_key_on_disk() const {
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_.path())) {
      if (!e.is_regular_file()) continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      EXPECT_EQ(s.str().find(kSentinel), std::string::npos) << "the key leaked into " << e.path();
    }
  }
  static void expect_no_key(const Proposal& p) {
    EXPECT_EQ(p.transcript.find(kSentinel), std::string::npos);
    EXPECT_EQ(p.cost_note.find(kSentinel), std::string::npos);
    for (const auto& r : p.rejected) {
      EXPECT_EQ(r.reason.find(kSentinel), std::string::npos);
      EXPECT_EQ(r.excerpt.find(kSentinel), std::string::npos);
    }
  }

  kh::test::TempDir dir_;
  ProposalContext ctx_ = test::rmsnorm_request(dir_.path());
};

TEST_P(ChatAgentTest, CorrectImprovementBecomesACandidateWithTokenCounts) {
  ScriptedChatServer server(
      {{200, body(test::rmsnorm_answer("fast", "faster.cpp", "rmsnorm_fast", "memory_access"))}});
  const Proposal p = make(server)->propose(ctx_);
  ASSERT_EQ(p.candidates.size(), 1u) << (p.rejected.empty() ? p.transcript : p.rejected[0].reason);
  EXPECT_EQ(p.candidates[0].family, "memory_access");
  EXPECT_EQ(p.candidates[0].solution.spec.entry_point, "kernel.cpp::rmsnorm_fast");
  EXPECT_EQ(p.candidates[0].solution.author, GetParam());
  EXPECT_EQ(p.input_tokens, 1200);
  EXPECT_EQ(p.output_tokens, 340);
  EXPECT_NE(p.cost_note.find("1 API call"), std::string::npos) << p.cost_note;
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, expected_path());
  // The key went to the server in its header, and nowhere else.
  const std::string header =
      anthropic() ? requests[0].headers.at("x-api-key") : requests[0].headers.at("authorization");
  EXPECT_NE(header.find(kSentinel), std::string::npos);
  if (anthropic()) {
    EXPECT_EQ(requests[0].headers.at("anthropic-version"), "2023-06-01");
  }
  const auto sent = nlohmann::json::parse(requests[0].body);
  EXPECT_EQ(sent["model"], "scripted-1");
  EXPECT_NE(sent.dump().find("file="), std::string::npos)
      << "the prompt must state the fenced-block convention";
  EXPECT_NE(sent.dump().find("Forbidden tricks"), std::string::npos) << "the prompt must carry the skills";
  expect_no_key(p);
  expect_no_key_on_disk();
}

TEST_P(ChatAgentTest, WrongAndCheatingKernelsReachTheHarnessAsCandidates) {
  // The agent does not judge kernels; the harness does. Both parse as candidates.
  const std::string text = test::rmsnorm_answer("wrong", "wrong.cpp", "rmsnorm_unweighted", "algorithmic") +
                           test::rmsnorm_answer("cheat", "cheating.cpp", "rmsnorm_scratch", "data_reuse");
  ScriptedChatServer server({{200, body(text)}});
  const Proposal p = make(server)->propose(ctx_);
  ASSERT_EQ(p.candidates.size(), 2u);
  EXPECT_EQ(p.candidates[0].solution.spec.entry_point, "kernel.cpp::rmsnorm_scratch");  // folders by name
}

TEST_P(ChatAgentTest, MalformedOutputIsRejectedWithTheReason) {
  ScriptedChatServer server({{200, body("I would vectorise the loads.\n```cpp\nvoid f() {}\n```\n")}});
  const Proposal p = make(server)->propose(ctx_);
  EXPECT_TRUE(p.candidates.empty());
  ASSERT_EQ(p.rejected.size(), 1u);
  EXPECT_NE(p.rejected[0].reason.find("malformed output: no code block names a file"), std::string::npos)
      << p.rejected[0].reason;
  EXPECT_NE(p.rejected[0].excerpt.find("vectorise"), std::string::npos);
}

TEST_P(ChatAgentTest, AnswerNamingAPathOutsideOutIsRejectedAndNothingIsWritten) {
  ScriptedChatServer server({{200, body("```cpp file=../../escape.cpp\nint x;\n```\n")}});
  const Proposal p = make(server)->propose(ctx_);
  ASSERT_EQ(p.rejected.size(), 1u);
  EXPECT_NE(p.rejected[0].reason.find("climbs out"), std::string::npos) << p.rejected[0].reason;
  EXPECT_FALSE(std::filesystem::exists(dir_.path().parent_path() / "escape.cpp"));
}

TEST_P(ChatAgentTest, RateLimitThenSuccessRetriesHonouringRetryAfter) {
  const std::string answer =
      body(test::rmsnorm_answer("fast", "faster.cpp", "rmsnorm_fast", "memory_access"));
  ScriptedChatServer server({{429, R"({"error": "rate limited"})", {{"Retry-After", "1"}}}, {200, answer}});
  const auto start = Clock::now();
  const Proposal p = make(server)->propose(ctx_);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(950)) << "Retry-After: 1 was not honoured";
  EXPECT_EQ(p.candidates.size(), 1u);
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_NE(p.cost_note.find("2 API calls, 1 retry after 429"), std::string::npos) << p.cost_note;
  EXPECT_NE(p.transcript.find("attempt 1"), std::string::npos);
}

TEST_P(ChatAgentTest, ServerErrorStormBacksOffThenGivesUpClearly) {
  ScriptedChatServer server({{500, R"({"error": "overloaded"})"}});
  const auto start = Clock::now();
  const std::string what = error_of([&] {
    (void)make(server, {{"max_attempts", 4}, {"backoff_s", 0.05}, {"backoff_max_s", 1}})->propose(ctx_);
  });
  const auto elapsed = Clock::now() - start;
  EXPECT_NE(what.find("gave up after 4 attempts"), std::string::npos) << what;
  EXPECT_NE(what.find("HTTP 500"), std::string::npos) << what;
  EXPECT_EQ(server.requests().size(), 4u);
  // Waits of 50, 100 and 200 ms: exponential, so at least 350 ms in all.
  EXPECT_GE(elapsed, std::chrono::milliseconds(340));
  EXPECT_THROW((void)make(server, {{"max_attempts", 2}, {"backoff_s", 0.01}})->propose(ctx_),
               agents::AgentUnavailable)
      << "a storm outlasting the retries is the service's unavailability, which the loop survives";
}

TEST_P(ChatAgentTest, ClientErrorFailsAtOnceWithoutLeakingTheKey) {
  // A server that echoes the request's key back in its error must not leak it.
  ScriptedChatServer server({{401, std::string(R"({"error": "invalid key )") + kSentinel + "\"}"}});
  const std::string what = error_of([&] { (void)make(server)->propose(ctx_); });
  EXPECT_NE(what.find("HTTP 401"), std::string::npos) << what;
  EXPECT_NE(what.find("not retried"), std::string::npos) << what;
  EXPECT_EQ(what.find(kSentinel), std::string::npos) << what;
  EXPECT_EQ(server.requests().size(), 1u);
  expect_no_key_on_disk();
  try {
    (void)make(server)->propose(ctx_);
    FAIL() << "a 401 was accepted";
  } catch (const agents::AgentUnavailable& e) {
    FAIL() << "a refusal is not unavailability: the loop must stop on it: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("HTTP 401"), std::string::npos) << e.what();
  }
}

TEST_P(ChatAgentTest, RequestTimeoutIsEnforced) {
  ScriptedChatServer server({{200, body("late"), {}, std::chrono::milliseconds(2500)}});
  const auto start = Clock::now();
  const std::string what = error_of([&] {
    (void)make(server, {{"timeout_s", 0.3}, {"max_attempts", 2}})->propose(ctx_);
  });
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(2000));
  EXPECT_NE(what.find("timed out"), std::string::npos) << what;
}

TEST_P(ChatAgentTest, ProposalDeadlineBoundsTheRetries) {
  ScriptedChatServer server({{503, "{}", {{"Retry-After", "30"}}}});
  ctx_.timeout = std::chrono::seconds(2);
  const auto start = Clock::now();
  EXPECT_THROW((void)make(server)->propose(ctx_), Error);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
}

std::string provider_name(const ::testing::TestParamInfo<std::string>& p) { return p.param; }

INSTANTIATE_TEST_SUITE_P(Providers, ChatAgentTest, ::testing::Values("openai", "anthropic"), provider_name);

TEST(ChatAgentKeys, AnthropicNeedsItsKeyAndSaysWhichVariable) {
  ::unsetenv("KH_UNSET_KEY");
  const std::string what = error_of([] {
    (void)make_agent(
        {"anthropic", {{"model", "m"}, {"api_key_env", "KH_UNSET_KEY"}, {"base_url", "http://127.0.0.1:9"}}});
  });
  EXPECT_NE(what.find("KH_UNSET_KEY"), std::string::npos) << what;
}

TEST(AgentFactory, KnowsTheBuiltInsAndRejectsUnknownNamesAndKeys) {
  const auto names = agent_names();
  for (const char* n : {"cli", "openai", "anthropic"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  }
  EXPECT_THROW((void)make_agent({"gpt", {}}), Error);
  EXPECT_THROW((void)make_agent({"openai", {{"model", "m"}, {"temprature", 0.1}}}), Error);
  EXPECT_THROW((void)make_agent({"openai", {}}), Error);  // model is required
  EXPECT_EQ(make_agent({"openai", {{"model", "m"}}})->name(), "openai");
  EXPECT_EQ(agent_spec("openai", R"({"model": "x"})").config["model"], "x");
}

}  // namespace
}  // namespace kh::agents
