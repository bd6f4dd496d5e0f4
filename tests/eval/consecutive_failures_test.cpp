// A dead solution is not paid for: after K consecutive TIMEOUT or crash results (default
// 3) the remaining workloads get the same status, marked not run, without being run; 0
// runs every workload. CPU backend, real worker processes.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "end_to_end_fixture.h"

namespace kh {
namespace {

const std::filesystem::path kSolutions =
    std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128";

class ConsecutiveFailures : public test::EndToEndSuite {
 protected:
  EvalOptions options(const std::string& name) const {
    return short_options("cpu", {1, 1, 2, 1, std::chrono::seconds(1)}, name);
  }
  static SolutionEvaluation run(const std::string& file, const EvalOptions& o) {
    return evaluate(test::gallery_solution(kSolutions, file, "cpp", {"rmsnorm_common.h"}), o);
  }
};

// The first `ran` workloads ran and failed with `status`; the rest are `status` too, not run.
void expect_stopped_after(const SolutionEvaluation& e, std::size_t ran, EvalStatus status) {
  ASSERT_EQ(e.workloads.size(), 5u) << "rmsnorm_h128 has 5 workloads, all reported";
  for (std::size_t i = 0; i < e.workloads.size(); ++i) {
    const WorkloadResult& w = e.workloads[i];
    EXPECT_EQ(status_name(w.status), status_name(status)) << i << ": " << w.log;
    EXPECT_EQ(w.not_run, i >= ran) << i;
    if (i < ran) {
      EXPECT_FALSE(w.check_seeds.empty()) << "workload " << i << " was run";
    } else {
      EXPECT_TRUE(w.check_seeds.empty()) << "workload " << i << " must not be run";
      EXPECT_NE(w.log.find("not run"), std::string::npos) << w.log;
      EXPECT_NE(w.log.find("--max-consecutive-failures"), std::string::npos) << w.log;
    }
  }
}

TEST_F(ConsecutiveFailures, HangingSolutionStopsAfterThreeTimeouts) {
  const SolutionEvaluation e = run("hang.cpp", options("hang"));
  expect_stopped_after(e, 3, EvalStatus::timeout);
  EXPECT_NE(e.workloads.back().log.find("timed out"), std::string::npos) << "the last failure is quoted";
}

TEST_F(ConsecutiveFailures, CrashingSolutionStopsAfterThreeCrashes) {
  const SolutionEvaluation e = run("segfault.cpp", options("crash"));
  expect_stopped_after(e, 3, EvalStatus::runtime_error);
  EXPECT_NE(e.workloads.back().log.find("signal 11"), std::string::npos);
}

TEST_F(ConsecutiveFailures, TheLimitIsConfigurable) {
  EvalOptions o = options("crash-1");
  o.max_consecutive_failures = 1;
  expect_stopped_after(run("segfault.cpp", o), 1, EvalStatus::runtime_error);
}

TEST_F(ConsecutiveFailures, ZeroRunsEveryWorkload) {
  EvalOptions o = options("crash-all");
  o.max_consecutive_failures = 0;
  expect_stopped_after(run("segfault.cpp", o), 5, EvalStatus::runtime_error);
}

TEST_F(ConsecutiveFailures, OrdinaryFailuresDoNotCount) {
  // Wrong numbers are a verdict on a healthy worker: every workload still runs.
  const SolutionEvaluation e = run("wrong.cpp", options("wrong"));
  for (const WorkloadResult& w : e.workloads) {
    EXPECT_EQ(w.status, EvalStatus::incorrect_numerical) << w.log;
    EXPECT_FALSE(w.not_run);
  }
}

}  // namespace
}  // namespace kh
