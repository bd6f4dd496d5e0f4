// The task board's rules, without Slurm: a result means done whatever squeue says; a
// task that ends without one is resubmitted until its attempts run out, then failed with
// every reason; a COMPLETED task whose result is late on the file system is given the
// grace period before it counts as failed.
#include "scale/task_board.h"

#include <gtest/gtest.h>

#include <set>

namespace kh::scale {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

QueueRow row(const std::string& job, std::size_t task, const std::string& state,
             const std::string& node = "n1") {
  return QueueRow{job, task, state, node, ""};
}

struct Files {
  std::set<std::size_t> results;
  TaskBoardChecks checks() {
    return {[this](std::size_t i, const TaskRecord&) { return results.count(i) > 0; },
            [](std::size_t i, const TaskRecord& t) {
              return "log of task " + std::to_string(i) + " s" + std::to_string(t.submission);
            }};
  }
};

TEST(TaskBoard, AResultMeansDoneAndStatesFollowTheQueue) {
  TaskBoard board(3, 3);
  EXPECT_EQ(board.to_submit(), (std::vector<std::size_t>{0, 1, 2}));
  board.submitted({0, 1, 2}, "100", 1);
  EXPECT_TRUE(board.to_submit().empty());
  Files files;
  const auto t0 = Clock::now();
  board.observe({row("100", 0, "RUNNING"), row("100", 1, "PENDING", ""), row("100", 2, "RUNNING")},
                files.checks(), t0, seconds(5));
  EXPECT_EQ(board.counts().running, 2u);
  EXPECT_EQ(board.counts().queued, 1u);
  EXPECT_EQ(board.task(0).node, "n1");
  files.results = {0, 2};
  board.observe({row("100", 0, "COMPLETED"), row("100", 1, "RUNNING"), row("100", 2, "COMPLETING")},
                files.checks(), t0, seconds(5));
  EXPECT_EQ(board.counts().done, 2u);
  EXPECT_FALSE(board.finished());
  EXPECT_EQ(board.active_job_ids(), (std::vector<std::string>{"100"}));
}

TEST(TaskBoard, AFailedTaskIsResubmittedThenFailedWithEveryReason) {
  TaskBoard board(2, 2);
  board.submitted({0, 1}, "7", 1);
  Files files;
  files.results = {1};
  const auto t0 = Clock::now();
  board.observe({row("7", 0, "NODE_FAIL"), row("7", 1, "COMPLETED")}, files.checks(), t0, seconds(5));
  EXPECT_EQ(board.to_submit(), (std::vector<std::size_t>{0})) << "attempts left: submit again";
  board.submitted({0}, "8", 2);
  EXPECT_EQ(board.counts().retries, 1u);
  EXPECT_EQ(board.task(0).attempts, 2);
  // The first job's rows no longer matter: task 0 is now job 8's.
  board.observe({row("7", 0, "NODE_FAIL"), row("8", 0, "PREEMPTED", "n2")}, files.checks(), t0, seconds(5));
  EXPECT_TRUE(board.finished());
  EXPECT_EQ(board.task(0).state, TaskState::failed);
  ASSERT_EQ(board.task(0).failures.size(), 2u);
  EXPECT_NE(board.task(0).failures[0].find("NODE_FAIL"), std::string::npos) << board.task(0).failures[0];
  EXPECT_NE(board.task(0).failures[0].find("log of task 0 s1"), std::string::npos);
  EXPECT_NE(board.task(0).failures[1].find("PREEMPTED"), std::string::npos);
  EXPECT_NE(board.task(0).failures[1].find("on n2"), std::string::npos);
  EXPECT_EQ(board.counts().failed, 1u);
  EXPECT_EQ(board.counts().done, 1u);
}

TEST(TaskBoard, ALateResultGetsTheGracePeriod) {
  TaskBoard board(1, 1);
  board.submitted({0}, "9", 1);
  Files files;
  const auto t0 = Clock::now();
  board.observe({row("9", 0, "COMPLETED")}, files.checks(), t0, seconds(30));
  EXPECT_FALSE(board.finished()) << "a COMPLETED task's result may lag on a network file system";
  files.results = {0};
  board.observe({row("9", 0, "COMPLETED")}, files.checks(), t0 + seconds(10), seconds(30));
  EXPECT_EQ(board.task(0).state, TaskState::done);
}

TEST(TaskBoard, ATaskThatLeftTheQueueWithoutResultFailsAfterTheGrace) {
  TaskBoard board(1, 1);
  board.submitted({0}, "9", 1);
  Files files;
  const auto t0 = Clock::now();
  board.observe({}, files.checks(), t0, seconds(30));
  EXPECT_FALSE(board.finished());
  board.observe({}, files.checks(), t0 + seconds(31), seconds(30));
  ASSERT_EQ(board.task(0).state, TaskState::failed);
  EXPECT_NE(board.task(0).failures[0].find("left the queue without a result"), std::string::npos);
}

TEST(TaskBoard, ARequeuedTaskIsQueuedAgain) {
  TaskBoard board(1, 3);
  board.submitted({0}, "5", 1);
  Files files;
  const auto t0 = Clock::now();
  board.observe({row("5", 0, "RUNNING")}, files.checks(), t0, seconds(5));
  board.observe({row("5", 0, "PENDING", "")}, files.checks(), t0, seconds(5));
  EXPECT_EQ(board.task(0).state, TaskState::queued) << "Slurm's own requeue (a preemption) is not a failure";
  EXPECT_EQ(board.task(0).attempts, 1);
}

}  // namespace
}  // namespace kh::scale
