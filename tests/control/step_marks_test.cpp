// Step marks of steps run side by side: a death or a stop during a batch cannot be pinned
// on one of its steps, so it leaves each a shared strike, which fails and bans nothing;
// the same event on a step run alone is that step's own strike.
#include "control/step_marks.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "archive/controller_log.h"
#include "control/process_identity.h"
#include "support/temp_dir.h"

namespace kh::control {
namespace {

// The identity of a process that has exited (a child, reaped).
ProcessIdentity dead_process() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  ProcessIdentity me = this_process();
  ProcessIdentity dead{pid, me.start_ticks + 1, me.boot_id};
  int status = 0;
  waitpid(pid, &status, 0);
  return dead;
}

// A mark left running by an orchestrator that died, as a loop finds it when it starts again.
void leave_running(archive::Archive& a, const std::string& key, int batch) {
  nlohmann::ordered_json mark = {{"content_id", "c-" + key},
                                 {"retained_best", false},
                                 {"running", true},
                                 {"owner", dead_process().json()},
                                 {"started_at", "2026-01-01T00:00:00Z"},
                                 {"strikes", nlohmann::ordered_json::array()}};
  if (batch > 1) mark["batch"] = batch;
  archive::put_manifest(a, "loop", "step/" + key, mark);
}

TEST(StepMarks, ADeathDuringABatchIsASharedStrike) {
  const test::TempDir dir;
  archive::Archive a = archive::Archive::open_or_create(dir.path());
  leave_running(a, "batched-1", 2);
  leave_running(a, "batched-2", 2);
  leave_running(a, "alone", 1);
  StepMarks marks(a, "loop");
  marks.settle([](const std::string&) { return false; });
  for (const char* key : {"batched-1", "batched-2"}) {
    EXPECT_EQ(marks.strikes(key), 0u) << key;
    EXPECT_EQ(marks.shared_strikes(key), 1u) << key;
  }
  EXPECT_EQ(marks.strikes("alone"), 1u);
  EXPECT_EQ(marks.shared_strikes("alone"), 0u);
  // Read back from the archive, as the next run of the loop sees them.
  const StepMarks again(a, "loop");
  EXPECT_EQ(again.shared_strikes("batched-2"), 1u);
  EXPECT_EQ(again.strikes("alone"), 1u);
}

TEST(StepMarks, SharedStrikesBanNothingAndAStepRunAloneIsStruckForItself) {
  const test::TempDir dir;
  archive::Archive a = archive::Archive::open_or_create(dir.path());
  StepMarks marks(a, "loop");
  for (int i = 0; i < 3; ++i) {
    marks.begin("step", "killer", false, 3);
    marks.strike("step", "stopped while a batch ran");
  }
  EXPECT_EQ(marks.strikes("step"), 0u);
  EXPECT_EQ(marks.shared_strikes("step"), 3u);
  EXPECT_TRUE(marks.banned().empty()) << "shared strikes must not ban";
  // Alone, the same event is the step's own: two of them ban its solution.
  marks.begin("step", "killer", false);
  marks.strike("step", "stopped while it ran alone");
  marks.begin("step", "killer", false);
  marks.strike("step", "stopped again");
  EXPECT_EQ(marks.strikes("step"), 2u);
  EXPECT_EQ(marks.banned(), std::set<std::string>{"killer"});
}

// A solution in a jail with its own PID namespace cannot signal the orchestrator: a death
// or stop while it ran (a person's kill -9) is not pinned on it, and bans nothing.
TEST(StepMarks, ADeathWhileAContainedSolutionRanIsASharedStrike) {
  const test::TempDir dir;
  archive::Archive a = archive::Archive::open_or_create(dir.path());
  StepMarks marks(a, "loop");
  for (int i = 0; i < 3; ++i) {
    marks.begin("step", "jailed", false, 1, /*contained=*/true);
    marks.strike("step", "stopped while it ran");
  }
  EXPECT_EQ(marks.strikes("step"), 0u);
  EXPECT_EQ(marks.shared_strikes("step"), 3u);
  EXPECT_TRUE(marks.banned().empty());
  marks.begin("open", "unjailed", false, 1, /*contained=*/false);
  marks.strike("open", "stopped while it ran");
  EXPECT_EQ(marks.strikes("open"), 1u) << "without the jail the solution is the suspect";
}

}  // namespace
}  // namespace kh::control
