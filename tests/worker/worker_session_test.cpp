#include "worker/worker_session.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "error/error.h"
#include "process_probe.h"
#include "scratch_dir.h"

namespace kh {
namespace {

using namespace std::chrono_literals;
using Kind = CallOutcome::Kind;

// Short enough to keep the suite fast, long enough for a loaded CI machine to reply.
constexpr auto kHangTimeout = 300ms;
constexpr auto kReplyTimeout = 5000ms;

SpawnOptions child_options(const test::ScratchDir& dir, std::vector<std::string> args = {}) {
  SpawnOptions options;
  options.argv = {KHARNESS_WORKER_TEST_CHILD};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.work_dir = dir.path() / "work";
  return options;
}

std::vector<std::byte> bytes(std::size_t n) {
  std::vector<std::byte> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::byte>(i * 7);
  return out;
}

pid_t grandchild_pid(const CallOutcome& outcome) {
  for (const auto& note : outcome.notes)
    if (note.header.contains("pid")) return note.header["pid"].get<pid_t>();
  return 0;
}

class WorkerSessionTest : public ::testing::Test {
 protected:
  test::ScratchDir dir;
  WorkerSession session{child_options(dir)};
};

TEST_F(WorkerSessionTest, EchoesHeaderAndPayload) {
  auto payload = bytes(1 << 20);
  auto outcome = session.call("echo", {{"n", 5}}, payload, kReplyTimeout);
  ASSERT_TRUE(outcome.ok()) << outcome.describe();
  EXPECT_EQ(outcome.reply->kind(), "echo");
  EXPECT_EQ(outcome.reply->header["n"], 5);
  EXPECT_EQ(outcome.reply->payload, payload);
  auto second = session.call("echo", nullptr, {}, kReplyTimeout);
  ASSERT_TRUE(second.ok());
  EXPECT_GT(second.reply->request_id, outcome.reply->request_id);
}

TEST_F(WorkerSessionTest, AThrowingHandlerRepliesWithAnError) {
  auto outcome = session.call("throw", nullptr, {}, kReplyTimeout);
  ASSERT_TRUE(outcome.ok()) << outcome.describe();
  EXPECT_EQ(outcome.reply->kind(), "error");
  EXPECT_EQ(outcome.reply->header["message"], "handler failed on purpose");
  EXPECT_TRUE(session.call("echo", nullptr, {}, kReplyTimeout).ok());  // the loop goes on
}

TEST_F(WorkerSessionTest, AfterReplyRunsOnceForEachReplyAfterItWasSent) {
  ASSERT_TRUE(session.call("echo", nullptr, {}, kReplyTimeout).ok());
  ASSERT_TRUE(session.call("throw", nullptr, {}, kReplyTimeout).ok());  // an error reply counts too
  auto counted = session.call("after_replies", nullptr, {}, kReplyTimeout);
  ASSERT_TRUE(counted.ok()) << counted.describe();
  EXPECT_EQ(counted.reply->header["after_replies"], 2);
  // The hook sleeps 2 s after this reply: the reply must not wait for it.
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(session.call("slow_after_reply", nullptr, {}, kReplyTimeout).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms);
  auto after = session.call("after_replies", nullptr, {}, kReplyTimeout);
  ASSERT_TRUE(after.ok()) << after.describe();
  EXPECT_EQ(after.reply->header["after_replies"], 4);
}

TEST_F(WorkerSessionTest, CollectsLogFrames) {
  auto outcome = session.call("progress", {{"count", 5}}, {}, kReplyTimeout);
  ASSERT_TRUE(outcome.ok()) << outcome.describe();
  EXPECT_EQ(outcome.reply->kind(), "done");
  EXPECT_EQ(outcome.notes.size(), 5u);
}

TEST_F(WorkerSessionTest, AHangIsATimeoutAndTheWorkerIsKilled) {
  auto start = std::chrono::steady_clock::now();
  auto outcome = session.call("sleep", nullptr, {}, kHangTimeout);
  EXPECT_EQ(outcome.kind, Kind::timeout);
  EXPECT_EQ(outcome.reason, "no reply within 300 ms");
  EXPECT_EQ(outcome.exit_status, ExitStatus::signalled(SIGKILL, false));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_F(WorkerSessionTest, ATimeoutKillsTheWholeProcessGroup) {
  auto outcome = session.call("fork_and_hang", nullptr, {}, kHangTimeout);
  EXPECT_EQ(outcome.kind, Kind::timeout);
  pid_t grandchild = grandchild_pid(outcome);
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(test::process_gone(grandchild));
}

TEST_F(WorkerSessionTest, IgnoringSigtermDoesNotHelp) {
  pid_t pid = session.process().pid();
  std::thread terminator([pid] {
    std::this_thread::sleep_for(100ms);
    ::kill(pid, SIGTERM);
  });
  auto outcome = session.call("ignore_sigterm", nullptr, {}, kHangTimeout);
  terminator.join();
  EXPECT_EQ(outcome.kind, Kind::timeout) << outcome.describe();  // SIGTERM did not end it
  EXPECT_EQ(outcome.exit_status, ExitStatus::signalled(SIGKILL, false));
  EXPECT_TRUE(test::process_gone(pid));
}

TEST_F(WorkerSessionTest, ASegfaultIsACrash) {
  auto outcome = session.call("segfault", nullptr, {}, kReplyTimeout);
  EXPECT_EQ(outcome.kind, Kind::crashed);
  EXPECT_EQ(outcome.reason, "killed by signal 11 (Segmentation fault)");
  EXPECT_EQ(outcome.describe(), "crashed: killed by signal 11 (Segmentation fault)");
}

TEST_F(WorkerSessionTest, ExitingWithSuccessIsStillACrash) {
  auto outcome = session.call("exit", {{"code", 0}}, {}, kReplyTimeout);
  EXPECT_EQ(outcome.kind, Kind::crashed);
  EXPECT_EQ(outcome.reason, "exited with code 0");
}

TEST_F(WorkerSessionTest, ACrashWhileAGrandchildHoldsTheChannelIsStillSeen) {
  auto start = std::chrono::steady_clock::now();
  auto outcome = session.call("fork_and_crash", nullptr, {}, kReplyTimeout);
  EXPECT_EQ(outcome.kind, Kind::crashed) << outcome.describe();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);  // not found by the timeout
  pid_t grandchild = grandchild_pid(outcome);
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(test::process_gone(grandchild));
}

TEST_F(WorkerSessionTest, StderrTailExplainsACrash) {
  auto outcome = session.call("stderr_crash", nullptr, {}, kReplyTimeout);
  EXPECT_EQ(outcome.kind, Kind::crashed);
  EXPECT_EQ(outcome.exit_status->signal(), SIGABRT);
  EXPECT_NE(outcome.stderr_tail.find("kaboom"), std::string::npos) << outcome.stderr_tail;
}

TEST_F(WorkerSessionTest, GarbageOnTheChannelIsAViolation) {
  auto outcome = session.call("garbage", nullptr, {}, kReplyTimeout);
  EXPECT_EQ(outcome.kind, Kind::protocol_violation);
  EXPECT_NE(outcome.reason.find("bad frame magic"), std::string::npos) << outcome.reason;
  EXPECT_EQ(outcome.exit_status, ExitStatus::signalled(SIGKILL, false));
}

TEST_F(WorkerSessionTest, AReplyToAnotherRequestIsAViolation) {
  auto outcome = session.call("wrong_id", nullptr, {}, kReplyTimeout);
  EXPECT_EQ(outcome.kind, Kind::protocol_violation);
  EXPECT_EQ(outcome.reason, "reply for request 1001 does not match request 1");
}

TEST_F(WorkerSessionTest, ClosingTheChannelAndLivingOnIsAViolation) {
  auto outcome = session.call("close_channel", nullptr, {}, kHangTimeout);
  EXPECT_EQ(outcome.kind, Kind::protocol_violation) << outcome.describe();
  EXPECT_EQ(outcome.reason, "worker closed the channel but kept running");
}

TEST_F(WorkerSessionTest, AFloodOfNotesIsAViolation) {
  auto outcome = session.call("progress", {{"count", 5000}}, {}, kReplyTimeout);
  EXPECT_EQ(outcome.kind, Kind::protocol_violation);
  EXPECT_EQ(outcome.reason, "worker sent more than 4096 log/progress frames");
}

TEST_F(WorkerSessionTest, AForkedGrandchildDiesWithTheWorker) {
  auto outcome = session.call("fork_grandchild", nullptr, {}, kReplyTimeout);
  ASSERT_TRUE(outcome.ok()) << outcome.describe();
  pid_t grandchild = outcome.reply->header["pid"].get<pid_t>();
  EXPECT_FALSE(test::process_dead_now(grandchild));
  session.process().kill();
  EXPECT_TRUE(test::process_gone(grandchild));
}

TEST_F(WorkerSessionTest, RestartGivesAWorkingWorkerAfterACrash) {
  EXPECT_EQ(session.call("segfault", nullptr, {}, kReplyTimeout).kind, Kind::crashed);
  auto dead = session.call("echo", nullptr, {}, kReplyTimeout);
  EXPECT_EQ(dead.kind, Kind::crashed);
  EXPECT_EQ(dead.reason, "worker is not running: killed by signal 11 (Segmentation fault)");
  pid_t old_pid = session.process().pid();
  session.restart();
  EXPECT_EQ(session.restarts(), 1u);
  EXPECT_NE(session.process().pid(), old_pid);
  EXPECT_TRUE(session.call("echo", nullptr, {}, kReplyTimeout).ok());
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "work" / "stderr.log.1"));
}

TEST_F(WorkerSessionTest, ShutdownEndsTheWorkerCleanly) {
  EXPECT_EQ(session.shutdown(2s), ExitStatus::exited(0));
}

TEST(WorkerSession, AWorkerThatExitsAtOnceIsACrash) {
  test::ScratchDir dir;
  WorkerSession session(child_options(dir, {"exit", "0"}));
  auto outcome = session.call("echo", nullptr, {}, kReplyTimeout);
  EXPECT_EQ(outcome.kind, Kind::crashed) << outcome.describe();
  EXPECT_NE(outcome.reason.find("exited with code 0"), std::string::npos) << outcome.reason;
}

}  // namespace
}  // namespace kh
