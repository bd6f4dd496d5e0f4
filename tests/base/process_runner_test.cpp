#include "base/process_runner.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "base/process_group_registry.h"
#include "error/error.h"
#include "support/temp_dir.h"

namespace kh {
namespace {
using namespace std::chrono_literals;

// A compiler-style run: stdout and stderr merged, the head kept.
ProcessRun run(std::vector<std::string> argv, const std::filesystem::path& cwd,
               std::chrono::milliseconds timeout, std::function<void(std::string_view)> on_output = {}) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = cwd;
  RunOptions options;
  options.timeout = timeout;
  options.on_output = std::move(on_output);
  return run_process(std::move(spec), options);
}

TEST(ProcessRunner, CapturesOutputAndExitCode) {
  const ProcessRun r = run({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, "/", 30s);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code(), 3);
  EXPECT_NE(r.out.find("out\n"), std::string::npos);
  EXPECT_NE(r.out.find("err\n"), std::string::npos);
}

TEST(ProcessRunner, RunsInTheGivenDirectory) {
  const ProcessRun r = run({"/bin/sh", "-c", "pwd"}, "/tmp", 30s);
  EXPECT_EQ(r.out, "/tmp\n");
}

TEST(ProcessRunner, TimeoutKillsTheWholeProcessGroup) {
  // The grandchild keeps the output pipe open; only killing the group ends it.
  const auto start = std::chrono::steady_clock::now();
  const ProcessRun r = run({"/bin/sh", "-c", "sleep 30 & sleep 30; echo never"}, "/", 500ms);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(elapsed, 5.0);
  EXPECT_EQ(r.out.find("never"), std::string::npos);
}

TEST(ProcessRunner, OutputReachesTheSinkWhileTheProcessStillRuns) {
  // A run that hangs and is killed must leave what it printed before: the sink sees it
  // as it comes, well before the limit ends the run.
  const auto start = std::chrono::steady_clock::now();
  std::string seen;
  double first_seen = -1;
  const ProcessRun r = run({"/bin/sh", "-c", "echo started; sleep 30"}, "/", 3s, [&](std::string_view chunk) {
    if (first_seen < 0) {
      first_seen = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    seen.append(chunk);
  });
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(seen, "started\n");
  EXPECT_EQ(r.out, "started\n");
  EXPECT_GE(first_seen, 0.0);
  EXPECT_LT(first_seen, 2.5) << "the output arrived only when the run was killed";
}

TEST(ProcessRunner, MissingExecutableIsAFailedRun) {
  const ProcessRun r = run({"/nonexistent/compiler"}, "/", 30s);
  EXPECT_EQ(r.exit_code(), 127);
  EXPECT_NE(r.out.find("cannot execute"), std::string::npos);
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

TEST(ProcessRunner, ASignalThatStopsKharnessTakesTheChildsWholeGroupWithIt) {
  // The child leads its own group, so SIGTERM to kharness alone (what `timeout` and a
  // batch scheduler send) never reaches it or what it started.
  test::TempDir dir;
  const std::filesystem::path pid_file = dir / "grandchild.pid";
  const pid_t runner = ::fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    kill_child_groups_on_termination();
    const std::string script = "sleep 60 & echo $! > '" + pid_file.string() + "'; wait";
    (void)run({"/bin/sh", "-c", script}, "/", 120s);
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

TEST(ProcessRunner, CaptureIsBoundedAndKeepsBothEnds) {
  test::TempDir dir;
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo FIRST; head -c 200000 /dev/zero | tr '\\0' x; echo; echo LAST"};
  spec.cwd = dir.path();
  RunOptions options;
  options.timeout = std::chrono::seconds(20);
  options.merge_output = false;
  options.capture_bytes = 4096;
  options.keep_tail = true;
  const ProcessRun run = run_process(std::move(spec), options);
  EXPECT_EQ(run.status, ExitStatus::exited(0));
  EXPECT_LT(run.out.size(), 5000u);
  EXPECT_EQ(run.out.rfind("FIRST", 0), 0u);
  EXPECT_NE(run.out.find("bytes left out"), std::string::npos);
  EXPECT_NE(run.out.find("LAST"), std::string::npos);
}

}  // namespace
}  // namespace kh
