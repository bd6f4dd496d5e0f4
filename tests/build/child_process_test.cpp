#include "build/detail/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "build/detail/child_groups.h"
#include "error/error.h"
#include "support/temp_dir.h"

namespace kh::detail {
namespace {
using namespace std::chrono_literals;

TEST(ChildProcess, CapturesOutputAndExitCode) {
  const ProcessOutcome r = run_process({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, "/", 30s);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.output.find("out\n"), std::string::npos);
  EXPECT_NE(r.output.find("err\n"), std::string::npos);
}

TEST(ChildProcess, RunsInTheGivenDirectory) {
  const ProcessOutcome r = run_process({"/bin/sh", "-c", "pwd"}, "/tmp", 30s);
  EXPECT_EQ(r.output, "/tmp\n");
}

TEST(ChildProcess, TimeoutKillsTheWholeProcessGroup) {
  // The grandchild keeps the output pipe open; only killing the group ends it.
  const auto start = std::chrono::steady_clock::now();
  const ProcessOutcome r = run_process({"/bin/sh", "-c", "sleep 30 & sleep 30; echo never"}, "/", 500ms);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(elapsed, 5.0);
  EXPECT_EQ(r.output.find("never"), std::string::npos);
}

TEST(ChildProcess, OutputReachesTheSinkWhileTheProcessStillRuns) {
  // A run that hangs and is killed must leave what it printed before: the sink sees it
  // as it comes, well before the limit ends the run.
  const auto start = std::chrono::steady_clock::now();
  std::string seen;
  double first_seen = -1;
  const ProcessOutcome r =
      run_process({"/bin/sh", "-c", "echo started; sleep 30"}, "/", 3s, [&](std::string_view chunk) {
        if (first_seen < 0) {
          first_seen = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
        seen.append(chunk);
      });
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(seen, "started\n");
  EXPECT_EQ(r.output, "started\n");
  EXPECT_GE(first_seen, 0.0);
  EXPECT_LT(first_seen, 2.5) << "the output arrived only when the run was killed";
}

TEST(ChildProcess, MissingExecutableIsAFailedRun) {
  const ProcessOutcome r = run_process({"/nonexistent/compiler"}, "/", 30s);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.output.find("cannot execute"), std::string::npos);
}

// Gone, or a zombie nobody reaps yet (a container's init may not).
bool process_gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

pid_t read_pid(const std::filesystem::path& file, std::chrono::seconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(file);
    pid_t pid = 0;
    if (in >> pid && pid > 0) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

TEST(ChildProcess, ASignalThatStopsKharnessTakesTheChildsWholeGroupWithIt) {
  // The child leads its own group, so SIGTERM to kharness alone (what `timeout` and a
  // batch scheduler send) never reaches it or what it started.
  test::TempDir dir;
  const std::filesystem::path pid_file = dir / "grandchild.pid";
  const pid_t runner = ::fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    kill_child_groups_on_termination();
    const std::string script = "sleep 60 & echo $! > '" + pid_file.string() + "'; wait";
    (void)run_process({"/bin/sh", "-c", script}, "/", 120s);
    ::_exit(0);
  }
  const pid_t grandchild = read_pid(pid_file, 10s);
  ASSERT_GT(grandchild, 0) << "the child never started";
  ::kill(runner, SIGTERM);
  int status = 0;
  ::waitpid(runner, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "it must still die of the signal";
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!process_gone(grandchild) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const bool gone = process_gone(grandchild);
  if (!gone) ::kill(grandchild, SIGKILL);  // no leftover from a failed run
  EXPECT_TRUE(gone) << "the child's group outlived kharness";
}

}  // namespace
}  // namespace kh::detail
