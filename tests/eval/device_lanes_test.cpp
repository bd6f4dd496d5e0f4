// Workloads dealt over device lanes (`--gpus`), on the CPU backend's logical lanes: the
// verdicts and every seed are those of one lane, each workload says which lane ran it,
// a cheat is caught on every lane, and a workload evaluated alone draws the seeds it
// draws in the full run (what lets Slurm shards reproduce a local run).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "end_to_end_fixture.h"
#include "eval/trace_record.h"

namespace kh {
namespace {

const std::filesystem::path kSolutions =
    std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128";

class DeviceLanes : public test::EndToEndSuite {
 protected:
  static EvalOptions options(const std::string& name, std::size_t lanes) {
    EvalOptions o = short_options("cpu", {2, 1, 5, 2, std::chrono::seconds(20)}, name);
    o.seed = 4242;
    for (std::size_t i = 0; i < lanes; ++i)
      o.lanes.push_back(DeviceLane{static_cast<int>(i), "cpu", "", "", "", {}});
    return o;
  }
  static Solution solution(const std::string& file) {
    return test::gallery_solution(kSolutions, file, "cpp", {"rmsnorm_common.h"});
  }
};

void expect_same_draws(const WorkloadResult& a, const WorkloadResult& b) {
  EXPECT_EQ(a.workload.uuid, b.workload.uuid);
  EXPECT_EQ(status_name(a.status), status_name(b.status)) << a.log << " / " << b.log;
  EXPECT_EQ(a.check_seeds, b.check_seeds) << a.workload.uuid;
  ASSERT_EQ(a.latency.has_value(), b.latency.has_value());
  if (a.latency) {
    EXPECT_EQ(a.latency->set_seeds, b.latency->set_seeds) << a.workload.uuid;
  }
  ASSERT_EQ(a.reference_latency.has_value(), b.reference_latency.has_value());
  if (a.reference_latency) {
    EXPECT_EQ(a.reference_latency->set_seeds, b.reference_latency->set_seeds);
  }
}

TEST_F(DeviceLanes, TwoLanesGiveOneLanesVerdictsAndSeeds) {
  const SolutionEvaluation one = evaluate(solution("correct.cpp"), options("one", 0));
  const SolutionEvaluation two = evaluate(solution("correct.cpp"), options("two", 2));
  ASSERT_EQ(one.workloads.size(), two.workloads.size());
  ASSERT_GE(one.workloads.size(), 4u);
  for (std::size_t i = 0; i < one.workloads.size(); ++i) {
    EXPECT_EQ(one.workloads[i].status, EvalStatus::passed) << one.workloads[i].log;
    expect_same_draws(one.workloads[i], two.workloads[i]);
  }
  ASSERT_EQ(two.lanes.size(), 2u);
  EXPECT_EQ(two.lanes[0].device.value("index", -1), 0);
  EXPECT_EQ(two.lanes[1].device.value("index", -1), 1);
  std::set<std::size_t> used;
  for (const WorkloadResult& w : two.workloads) used.insert(w.lane);
  EXPECT_EQ(used, (std::set<std::size_t>{0, 1})) << "the workloads were not dealt over both lanes";
}

TEST_F(DeviceLanes, EachTraceNamesTheLaneThatRanIt) {
  const SolutionEvaluation two = evaluate(solution("correct.cpp"), options("traces", 2));
  const OperatorEntry* op = ops_->find("rmsnorm_h128");
  const EvaluationTarget target{op->definition,
                                ops_->workloads("rmsnorm_h128", false),
                                op->dir,
                                solution("correct.cpp"),
                                ops_->reference("rmsnorm_h128", "cpu"),
                                "default",
                                *op->tolerance,
                                op->speed_of_light};
  const EvalOptions o = options("traces", 2);
  for (const WorkloadResult& w : two.workloads) {
    const Trace t = make_trace(target, two, w, o);
    EXPECT_EQ(t.evaluation->raw["kharness"]["device"].value("index", -1), static_cast<int>(w.lane));
  }
}

TEST_F(DeviceLanes, AWorkloadAloneDrawsTheSeedsItDrawsInTheFullRun) {
  const SolutionEvaluation full = evaluate(solution("correct.cpp"), options("full", 0));
  // The last workload, alone: a different position in the list, the same seeds.
  const OperatorEntry* op = ops_->find("rmsnorm_h128");
  std::vector<Workload> last = {ops_->workloads("rmsnorm_h128", false).back()};
  const EvaluationTarget target{op->definition,
                                last,
                                op->dir,
                                solution("correct.cpp"),
                                ops_->reference("rmsnorm_h128", "cpu"),
                                "default",
                                *op->tolerance,
                                op->speed_of_light};
  const SolutionEvaluation alone = evaluate_solution(target, options("alone", 0));
  ASSERT_EQ(alone.workloads.size(), 1u);
  expect_same_draws(full.workloads.back(), alone.workloads[0]);
}

TEST_F(DeviceLanes, ACheatIsCaughtOnEveryLane) {
  const SolutionEvaluation e = evaluate(solution("modifies_input.cpp"), options("cheat", 2));
  test::expect_all(e, EvalStatus::reward_hack, "was modified by the solution");
}

// --max-consecutive-failures counts per lane: with a limit of 1 each lane runs the
// crashing candidate once at most, and reports whatever it takes after that as not run.
TEST_F(DeviceLanes, ConsecutiveFailuresAreCountedPerLane) {
  EvalOptions o = options("crash", 2);
  o.max_consecutive_failures = 1;
  const SolutionEvaluation e = evaluate(solution("segfault.cpp"), o);
  ASSERT_EQ(e.workloads.size(), 5u);
  std::map<std::size_t, int> ran;
  std::size_t not_run = 0;
  for (const WorkloadResult& w : e.workloads) {
    EXPECT_EQ(status_name(w.status), status_name(EvalStatus::runtime_error)) << w.log;
    ASSERT_LT(w.lane, 2u);
    if (w.not_run) {
      ++not_run;
      EXPECT_TRUE(w.check_seeds.empty()) << "workload " << w.workload.uuid << " must not be run";
      EXPECT_NE(w.log.find("--max-consecutive-failures 1"), std::string::npos) << w.log;
    } else {
      ++ran[w.lane];
    }
  }
  for (const auto& [lane, count] : ran) EXPECT_EQ(count, 1) << "lane " << lane << " ran it after its streak";
  EXPECT_GE(ran.size(), 1u);
  EXPECT_EQ(not_run, 5 - ran.size());
}

// Runs recorded before lanes drew one stream through their workloads; rerun keeps that
// scheme, and so runs them on one lane whatever it is given. The second run finds the
// first's reference latencies in the cache: reusing one must draw what measuring it
// would, or every later workload of the one stream would get other inputs.
TEST_F(DeviceLanes, TheSequentialSchemeStaysOnOneLane) {
  EvalOptions two = options("sequential-2", 2);
  two.seed_scheme = SeedScheme::sequential;
  EvalOptions one = options("sequential-1", 0);
  one.seed_scheme = SeedScheme::sequential;
  const SolutionEvaluation a = evaluate(solution("correct.cpp"), two);
  const SolutionEvaluation b = evaluate(solution("correct.cpp"), one);
  EXPECT_EQ(a.lanes.size(), 1u);
  ASSERT_EQ(a.workloads.size(), b.workloads.size());
  for (std::size_t i = 0; i < a.workloads.size(); ++i) {
    EXPECT_EQ(a.workloads[i].lane, 0u);
    expect_same_draws(a.workloads[i], b.workloads[i]);
    ASSERT_TRUE(b.workloads[i].reference_latency.has_value());
    EXPECT_EQ(b.workloads[i].reference_latency->source, "cache");
  }
}

}  // namespace
}  // namespace kh
