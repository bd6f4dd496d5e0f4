#include "worker/worker_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "error/error.h"
#include "process_probe.h"
#include "scratch_dir.h"
#include "worker/await_reply.h"

namespace kh {
namespace {

using namespace std::chrono_literals;
using Clock = Channel::Clock;

SpawnOptions child_options(const test::ScratchDir& dir, std::vector<std::string> args = {}) {
  SpawnOptions options;
  options.argv = {KHARNESS_WORKER_TEST_CHILD};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.work_dir = dir.path() / "work";
  return options;
}

// One request, answered within a second.
Message ask(WorkerProcess& child, std::string_view kind, nlohmann::ordered_json fields = nullptr) {
  child.channel().send(Message::make(kind, 1, std::move(fields)));
  std::vector<Message> notes;
  auto reply = await_reply(child.channel(), 1, Clock::now() + 5s, notes);
  if (!reply) throw Error("no reply to " + std::string(kind));
  return *reply;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(WorkerProcess, ReportsAMissingExecutable) {
  test::ScratchDir dir;
  SpawnOptions options = child_options(dir);
  options.argv = {"/nonexistent/kharness-worker"};
  try {
    (void)WorkerProcess::spawn(options);
    FAIL() << "spawned a missing executable";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot start worker '/nonexistent/kharness-worker': No such file or directory");
  }
}

TEST(WorkerProcess, ReportsANonExecutableFile) {
  test::ScratchDir dir;
  auto script = dir.path() / "not-executable";
  std::ofstream(script) << "#!/bin/sh\n";
  SpawnOptions options = child_options(dir);
  options.argv = {script.string()};
  try {
    (void)WorkerProcess::spawn(options);
    FAIL() << "spawned a file without execute permission";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Permission denied"), std::string::npos) << e.what();
  }
}

TEST(WorkerProcess, ReportsTheExitCode) {
  test::ScratchDir dir;
  auto child = WorkerProcess::spawn(child_options(dir, {"exit", "3"}));
  auto status = child.wait();
  EXPECT_EQ(status, ExitStatus::exited(3));
  EXPECT_EQ(status.describe(), "exited with code 3");
}

TEST(WorkerProcess, StartsWithOnlyItsOwnDescriptorsInItsOwnSession) {
  test::ScratchDir dir;
  SpawnOptions options = child_options(dir);
  options.env_add = {{"KH_TEST_EXTRA", "added"}};
  auto child = WorkerProcess::spawn(options);
  auto reply = ask(child, "describe");
  EXPECT_EQ(reply.header["fds"], nlohmann::ordered_json({0, 1, 2, 3}));
  EXPECT_EQ(reply.header["channel_cloexec"], true);
  EXPECT_EQ(reply.header["cwd"], std::filesystem::canonical(dir.path() / "work").string());
  EXPECT_EQ(reply.header["pid"], child.pid());
  EXPECT_EQ(reply.header["pgid"], child.pid());
  EXPECT_EQ(reply.header["sid"], child.pid());
  EXPECT_EQ(reply.header["extra"], "added");
}

TEST(WorkerProcess, WritesStdoutToItsLog) {
  test::ScratchDir dir;
  auto child = WorkerProcess::spawn(child_options(dir));
  (void)ask(child, "print");
  EXPECT_EQ(read_file(child.stdout_path()), "hello stdout\n");
}

TEST(WorkerProcess, StderrTailShowsTheEndOfStderr) {
  test::ScratchDir dir;
  auto child = WorkerProcess::spawn(child_options(dir));
  child.channel().send(Message::make("stderr_crash", 1));
  auto status = child.wait();
  EXPECT_EQ(status.signal(), SIGABRT);
  EXPECT_EQ(child.stderr_tail(1000), "kaboom: the candidate fell over\n");
  EXPECT_EQ(child.stderr_tail(5), "over\n");
}

TEST(WorkerProcess, KillEndsTheWorkerAndTheDestructorLeavesNoZombie) {
  test::ScratchDir dir;
  pid_t pid = 0;
  {
    auto child = WorkerProcess::spawn(child_options(dir));
    pid = child.pid();
    EXPECT_FALSE(child.try_wait());
    EXPECT_EQ(child.kill(), ExitStatus::signalled(SIGKILL, false));
  }
  EXPECT_EQ(::kill(pid, 0), -1);  // reaped: not even a zombie is left
  EXPECT_EQ(errno, ESRCH);
  {
    auto child = WorkerProcess::spawn(child_options(dir));
    pid = child.pid();
  }
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST(WorkerProcess, EnforcesTheOpenFileLimit) {
  test::ScratchDir dir;
  SpawnOptions options = child_options(dir);
  options.limits.open_files = 16;
  auto child = WorkerProcess::spawn(options);
  auto reply = ask(child, "open_files");
  EXPECT_EQ(reply.header["emfile"], true) << reply.header.dump();
  EXPECT_LT(reply.header["opened"].get<int>(), 16);
}

TEST(WorkerProcess, EnforcesTheAddressSpaceLimit) {
  test::ScratchDir dir;
  SpawnOptions options = child_options(dir);
  options.limits.address_space_bytes = std::uint64_t{512} << 20;
  auto child = WorkerProcess::spawn(options);
  EXPECT_EQ(ask(child, "allocate", {{"bytes", std::uint64_t{1} << 30}}).header["ok"], false);
  EXPECT_EQ(ask(child, "allocate", {{"bytes", std::uint64_t{16} << 20}}).header["ok"], true);
}

TEST(WorkerProcess, EnforcesTheCpuTimeLimit) {
  test::ScratchDir dir;
  SpawnOptions options = child_options(dir);
  options.limits.cpu_seconds = 1;
  auto child = WorkerProcess::spawn(options);
  child.channel().send(Message::make("busy", 1));
  auto status = child.wait_until(Clock::now() + 5s);
  ASSERT_TRUE(status) << "busy worker outlived a 1 s CPU limit";
  EXPECT_TRUE(status->signal() == SIGXCPU || status->signal() == SIGKILL) << status->describe();
}

TEST(WorkerProcess, DiesWithTheThreadThatSpawnedIt) {
  test::ScratchDir dir;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t middle = ::fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    // An orchestrator that spawns a worker and then dies without cleaning up.
    auto child = WorkerProcess::spawn(child_options(dir));
    pid_t pid = child.pid();
    if (::write(fds[1], &pid, sizeof pid) != sizeof pid) ::_exit(1);
    ::_exit(0);
  }
  ::close(fds[1]);
  pid_t worker = 0;
  ASSERT_EQ(::read(fds[0], &worker, sizeof worker), static_cast<ssize_t>(sizeof worker));
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(middle, &status, 0), middle);
  EXPECT_TRUE(test::process_gone(worker)) << "worker " << worker << " outlived its orchestrator";
}

}  // namespace
}  // namespace kh
