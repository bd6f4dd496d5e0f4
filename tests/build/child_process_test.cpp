#include "build/detail/child_process.h"

#include <gtest/gtest.h>

#include <chrono>

#include "error/error.h"

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

TEST(ChildProcess, MissingExecutableIsAFailedRun) {
  const ProcessOutcome r = run_process({"/nonexistent/compiler"}, "/", 30s);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.output.find("cannot execute"), std::string::npos);
}

}  // namespace
}  // namespace kh::detail
