// The local executor with two CPU lanes and two jobs: each job runs on a lane of its own
// (the lanes are shared out, never shared), the two run at the same time, and each
// gets the verdicts and seeds it gets alone.
#include "scale/local_executor.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <set>

#include "eval/operator_library.h"
#include "support/temp_dir.h"

namespace kh::scale {
namespace {

using Clock = std::chrono::steady_clock;

EvaluationJob job(const OperatorLibrary& ops, const std::filesystem::path& scratch, const std::string& name) {
  const OperatorEntry* op = ops.find("rmsnorm_h128");
  EvaluationJob j;
  j.label = name;
  j.target = ops.target(op->definition, ops.workloads("rmsnorm_h128", false), op->dir,
                        ops.baseline("rmsnorm_h128", "cpu"), "cpu");
  j.options.backend = "cpu";
  j.options.correctness_trials = 1;
  j.options.protocol.warmup = 1;
  j.options.protocol.iterations = 5;
  j.options.protocol.trials = 1;
  j.options.seed = 77;
  j.options.worker_executable = KHARNESS_EXECUTABLE;
  j.options.work_dir = scratch / name;
  j.options.cache_dir = scratch / "cache";
  return j;
}

TEST(LocalExecutor, JobsRunSideBySideEachOnItsOwnLane) {
  const test::TempDir scratch;
  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  std::mutex m;
  std::vector<std::vector<Clock::time_point>> finished(2);
  std::vector<EvaluationJob> jobs = {job(ops, scratch.path(), "a"), job(ops, scratch.path(), "b")};
  for (std::size_t k = 0; k < 2; ++k) {
    jobs[k].options.on_workload = [&, k](const SolutionEvaluation&, const WorkloadResult&) {
      const std::lock_guard lock(m);
      finished[k].push_back(Clock::now());
    };
  }
  LocalExecutor executor({DeviceLane{0, "cpu", "", "", "", {}}, DeviceLane{1, "cpu", "", "", "", {}}});
  const std::vector<SolutionEvaluation> results = executor.run(jobs);
  ASSERT_EQ(results.size(), 2u);
  std::set<int> lanes;  // jobs are dealt dynamically: either may take either lane
  for (std::size_t k = 0; k < 2; ++k) {
    ASSERT_EQ(results[k].lanes.size(), 1u) << "each job on one lane of its own";
    lanes.insert(results[k].lanes[0].device.value("index", -1));
    EXPECT_TRUE(results[k].all_passed());
  }
  EXPECT_EQ(lanes, (std::set<int>{0, 1})) << "the two jobs shared a lane";
  // Same job, same seed: the same draws, whichever lane ran it.
  for (std::size_t i = 0; i < results[0].workloads.size(); ++i)
    EXPECT_EQ(results[0].workloads[i].check_seeds, results[1].workloads[i].check_seeds);
  ASSERT_FALSE(finished[0].empty());
  ASSERT_FALSE(finished[1].empty());
  EXPECT_TRUE(finished[0].front() < finished[1].back() && finished[1].front() < finished[0].back())
      << "the two jobs did not overlap in time";
}

}  // namespace
}  // namespace kh::scale
