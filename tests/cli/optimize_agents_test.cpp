// `kharness optimize` driven by LLM-style agents end to end on the CPU backend: a
// scripted OpenAI-compatible server, a scripted Anthropic server and a scripted CLI
// agent each offer a correct improvement, a wrong kernel and a cheating kernel (and the
// servers a 429 first, then malformed output); the loop promotes only the improvement,
// archives the rejected answer, and no API key appears anywhere in the archive.
//
// The loop starts from a deliberately slow solution (16 times the work, as the loop's own
// tests do): on a loaded 2-core machine the promotion rule's noise bound reaches 50%,
// which the improvement's 1.5x over the shipped baseline cannot always clear. That it
// also beats the baseline is shown by tests/agents/scripted_answers_test.cpp.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "archive/archive.h"
#include "archive/controller_log.h"
#include "cli/kharness_command.h"
#include "scripted_chat_server.h"
#include "support/temp_dir.h"

namespace kh {
namespace {

using agents::test::ScriptedChatServer;
using agents::test::ScriptedReply;
using cli_test::run;
using cli_test::Stderr;

const std::filesystem::path kSource = KHARNESS_SOURCE_DIR;
constexpr const char* kSentinel = "sk-SENTINEL-e2e-5c0ffee5-do-not-archive";

std::string three_kernels() {
  return agents::test::rmsnorm_answer("a_fast", "faster.cpp", "rmsnorm_fast", "memory_access") +
         agents::test::rmsnorm_answer("b_wrong", "wrong.cpp", "rmsnorm_unweighted", "algorithmic") +
         agents::test::rmsnorm_answer("c_cheat", "cheating.cpp", "rmsnorm_scratch", "data_reuse");
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

nlohmann::json optimize(const std::filesystem::path& archive, const std::string& agent,
                        const nlohmann::json& config) {
  const auto r =
      run("optimize --definition rmsnorm_h128 --small --backend cpu --no-reference-timing --rounds 1 "
          "--seed 11 --from " +
              quoted((kSource / "tests/control/data/rmsnorm_slow_knobs.json").string()) + " --archive " +
              quoted(archive.string()) + " --agent " + agent + " --agent-config " + quoted(config.dump()) +
              " --json",
          Stderr::dropped);
  EXPECT_EQ(r.status, 0) << r.out;
  return nlohmann::json::parse(r.out);
}

// Every file under the archive (index, WAL, blobs, workspaces), byte for byte.
void expect_no_key_in(const std::filesystem::path& dir) {
  std::size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    ++files;
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    EXPECT_EQ(s.str().find(kSentinel), std::string::npos) << "the key leaked into " << e.path();
  }
  EXPECT_GT(files, 3u);
}

void expect_only_the_improvement_promoted(const std::filesystem::path& archive, const nlohmann::json& s) {
  ASSERT_EQ(s.at("decisions").size(), 1u) << s.dump(2);
  EXPECT_EQ(s.at("decisions")[0].at("kind"), "promote") << s.dump(2);
  EXPECT_NE(s.at("best").at("name").get<std::string>().find("a_fast"), std::string::npos) << s.dump(2);
  archive::Archive a = archive::Archive::open_existing(archive);
  const auto ds = archive::load_decisions(a, s.at("loop_id").get<std::string>());
  ASSERT_EQ(ds.size(), 1u);
  const std::string evidence = ds[0].evidence.dump();
  // The wrong and cheating kernels were evaluated and failed, by the harness's verdicts.
  EXPECT_NE(evidence.find("INCORRECT_NUMERICAL"), std::string::npos) << evidence.substr(0, 4000);
  EXPECT_NE(evidence.find("REWARD_HACK"), std::string::npos) << evidence.substr(0, 4000);
}

class OptimizeWithChatAgent : public ::testing::TestWithParam<std::string> {};

TEST_P(OptimizeWithChatAgent, PromotesOnlyTheImprovementAndArchivesNoKey) {
  const bool anthropic = GetParam() == "anthropic";
  auto body = [&](const std::string& text) {
    return anthropic ? agents::test::anthropic_body(text, 5000, 3000)
                     : agents::test::openai_body(text, 5000, 3000);
  };
  // Explore: a 429, then three kernels. Exploit: malformed output (no named block).
  ScriptedChatServer server({ScriptedReply(429, R"({"error":"slow down"})", {{"Retry-After", "1"}}),
                             ScriptedReply(200, body(three_kernels())),
                             ScriptedReply(200, body("I think the kernel is already optimal."))});
  ::setenv("KH_E2E_KEY", kSentinel, 1);
  test::TempDir tmp("optimize-" + GetParam());
  const auto archive = tmp.path() / "a";
  const nlohmann::json s = optimize(archive, GetParam(),
                                    {{"base_url", server.base_url()},
                                     {"model", "scripted"},
                                     {"api_key_env", "KH_E2E_KEY"},
                                     {"backoff_s", 0.01}});
  ::unsetenv("KH_E2E_KEY");
  expect_only_the_improvement_promoted(archive, s);
  EXPECT_GE(server.requests().size(), 2u);
  const std::string key_header = anthropic ? "x-api-key" : "authorization";
  EXPECT_NE(server.requests()[0].headers.at(key_header).find(kSentinel), std::string::npos);
  archive::Archive a = archive::Archive::open_existing(archive);
  const std::string evidence =
      archive::load_decisions(a, s.at("loop_id").get<std::string>())[0].evidence.dump();
  EXPECT_NE(evidence.find("malformed output"), std::string::npos) << "the rejected answer must be archived";
  const auto costs =
      archive::load_decisions(a, s.at("loop_id").get<std::string>())[0].evidence.at("agent_costs");
  ASSERT_FALSE(costs.empty());
  EXPECT_EQ(costs[0].at("input_tokens"), 5000);
  EXPECT_EQ(costs[0].at("output_tokens"), 3000);
  EXPECT_NE(costs[0].at("cost_note").get<std::string>().find("retry after 429"), std::string::npos)
      << costs.dump();
  expect_no_key_in(archive);
}

// A 500 storm that outlasts the agent's retries in the exploit stage is a failed
// proposal, recorded with its reason and counted against the budget; the loop goes on
// and still promotes what explore found. (A refused key, a 4xx, stops it: ChatAgentTest.)
TEST(OptimizeWithChatAgent, AServerErrorStormIsRecordedAndTheLoopGoesOn) {
  ScriptedChatServer server({ScriptedReply(200, agents::test::openai_body(three_kernels(), 5000, 3000)),
                             ScriptedReply(500, R"({"error":"overloaded"})")});
  ::setenv("KH_E2E_KEY", kSentinel, 1);
  test::TempDir tmp("optimize-storm");
  const auto archive = tmp.path() / "a";
  const nlohmann::json s = optimize(archive, "openai",
                                    {{"base_url", server.base_url()},
                                     {"model", "scripted"},
                                     {"api_key_env", "KH_E2E_KEY"},
                                     {"max_attempts", 3},
                                     {"backoff_s", 0.01}});
  ::unsetenv("KH_E2E_KEY");
  expect_only_the_improvement_promoted(archive, s);
  EXPECT_EQ(server.requests().size(), 4u) << "one answer, then three attempts in the storm";
  archive::Archive a = archive::Archive::open_existing(archive);
  const auto rejected =
      archive::load_decisions(a, s.at("loop_id").get<std::string>())[0].evidence.at("rejected_answers");
  ASSERT_EQ(rejected.size(), 1u) << rejected.dump();
  EXPECT_NE(rejected[0].at("reason").get<std::string>().find("unavailable"), std::string::npos)
      << rejected.dump();
  EXPECT_NE(rejected[0].at("reason").get<std::string>().find("gave up after 3 attempts"), std::string::npos)
      << rejected.dump();
  expect_no_key_in(archive);
}

std::string provider_name(const ::testing::TestParamInfo<std::string>& p) { return p.param; }

INSTANTIATE_TEST_SUITE_P(Providers, OptimizeWithChatAgent, ::testing::Values("openai", "anthropic"),
                         provider_name);

TEST(OptimizeWithCliAgent, PromotesOnlyTheImprovementAndArchivesNoKey) {
  ::setenv("OPENAI_API_KEY", kSentinel, 1);
  test::TempDir tmp("optimize-cli");
  const auto archive = tmp.path() / "a";
  const std::string command = quoted((kSource / "tests/agents/scripts/answer_three_kernels.sh").string()) +
                              " " + quoted((kSource / "tests/agents/answers/rmsnorm_h128").string());
  const nlohmann::json s = optimize(archive, "cli", {{"command", command}, {"timeout_s", 60}});
  ::unsetenv("OPENAI_API_KEY");
  expect_only_the_improvement_promoted(archive, s);
  expect_no_key_in(archive);
}

// A command that fails whole offers no candidate; the console says why, not only "0 offered".
TEST(OptimizeWithCliAgent, AFailedCommandSaysWhyOnTheConsole) {
  test::TempDir tmp("optimize-cli-fails");
  const std::string command = "echo 'the first line' >&2; echo 'source x.cuh is nowhere' >&2; exit 3";
  const nlohmann::json config = {{"command", command}, {"timeout_s", 60}};
  const auto r =
      run("optimize --definition rmsnorm_h128 --small --backend cpu --no-reference-timing --rounds 1 "
          "--seed 11 --archive " +
          quoted((tmp.path() / "a").string()) + " --agent cli --agent-config " + quoted(config.dump()));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("explore: agent cli: cli agent exited with code 3: source x.cuh is nowhere"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace kh
