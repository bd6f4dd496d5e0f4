#include "agents/cli_agent.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "answer_fixture.h"
#include "error/error.h"
#include "support/temp_dir.h"

namespace kh::agents {
namespace {

const std::string kScripts = std::string(KHARNESS_SOURCE_DIR) + "/tests/agents/scripts/";
constexpr const char* kSentinel = "sk-SENTINEL-cli-0123456789abcdef";

CliAgent agent(const std::string& command, int timeout_s = 0) {
  return CliAgent(read_cli_agent_config({{"command", command}, {"timeout_s", timeout_s}}));
}

TEST(CliAgent, ScriptAnswersThroughOutAndIsValidated) {
  ::setenv("OPENAI_API_KEY", kSentinel, 1);
  kh::test::TempDir dir;
  const Proposal p = agent(kScripts + "answer_from_parent.sh").propose(test::rmsnorm_request(dir.path()));
  ASSERT_EQ(p.candidates.size(), 1u) << (p.rejected.empty() ? p.transcript : p.rejected[0].reason);
  EXPECT_TRUE(p.rejected.empty());
  EXPECT_EQ(p.candidates[0].family, "cache_blocking");
  EXPECT_NE(p.candidates[0].solution.sources[0].content.find("#define ROWS_PER_CHUNK 16"), std::string::npos);
  EXPECT_EQ(p.input_tokens, 1500);
  EXPECT_EQ(p.output_tokens, 300);
  EXPECT_NE(p.cost_note.find("$0.0123"), std::string::npos) << p.cost_note;
  EXPECT_NE(p.transcript.find("agent sees key [REDACTED]"), std::string::npos) << p.transcript;
  EXPECT_EQ(p.transcript.find(kSentinel), std::string::npos);
  ::unsetenv("OPENAI_API_KEY");
}

TEST(CliAgent, TimeoutKillsTheWholeProcessGroup) {
  kh::test::TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  const Proposal p = agent(kScripts + "spawn_sleeper.sh", 1).propose(test::rmsnorm_request(dir.path()));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_EQ(p.rejected.size(), 1u);
  EXPECT_NE(p.rejected[0].reason.find("killed at the time limit of 1 s"), std::string::npos)
      << p.rejected[0].reason;
  EXPECT_TRUE(p.candidates.empty());
  std::ifstream pid_file(dir / "sleeper.pid");
  pid_t sleeper = 0;
  ASSERT_TRUE(pid_file >> sleeper) << "the script did not start its child";
  // The background child was in the group: it is gone (or a zombie about to be reaped
  // by init), never still sleeping.
  bool alive = true;
  for (int i = 0; i < 100 && alive; ++i) {
    std::ifstream stat("/proc/" + std::to_string(sleeper) + "/stat");
    std::string pid_s, comm, state;
    alive = static_cast<bool>(stat >> pid_s >> comm >> state) && state != "Z";
    if (alive) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(alive) << "sleeper " << sleeper << " outlived the timeout";
}

TEST(CliAgent, AFailingCommandIsARejectedAnswerWithItsStderr) {
  kh::test::TempDir dir;
  const Proposal p = agent(kScripts + "fail.sh").propose(test::rmsnorm_request(dir.path()));
  ASSERT_EQ(p.rejected.size(), 1u);
  EXPECT_NE(p.rejected[0].reason.find("exited with code 3"), std::string::npos) << p.rejected[0].reason;
  EXPECT_NE(p.rejected[0].excerpt.find("quota exhausted"), std::string::npos);
}

TEST(CliAgent, ACommandThatIsNotFoundIsAnError) {
  kh::test::TempDir dir;
  EXPECT_THROW((void)agent("kh_no_such_command_anywhere --flag").propose(test::rmsnorm_request(dir.path())),
               Error);
}

TEST(CliAgent, NoAnswerIsRejected) {
  kh::test::TempDir dir;
  const Proposal p = agent("true").propose(test::rmsnorm_request(dir.path()));
  ASSERT_EQ(p.rejected.size(), 1u);
  EXPECT_NE(p.rejected[0].reason.find("no candidate in out/"), std::string::npos);
}

TEST(CliAgentConfig, UnknownKeysAndMissingCommandAreErrors) {
  EXPECT_THROW((void)read_cli_agent_config({{"comand", "x"}}), Error);
  EXPECT_THROW((void)read_cli_agent_config({{"command", "x"}, {"timeout", 3}}), Error);
  EXPECT_NO_THROW((void)read_cli_agent_config({{"command", "x"}, {"timeout_s", 3}, {"skills_budget", 100}}));
}

}  // namespace
}  // namespace kh::agents
