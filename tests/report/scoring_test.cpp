#include "report/scoring.h"

#include <gtest/gtest.h>

#include <vector>

namespace kh::report {
namespace {

WorkloadOutcome passed(double latency, double baseline) {
  WorkloadOutcome o;
  o.status = kPassed;
  o.latency_ms = latency;
  o.baseline_ms = baseline;
  return o;
}

WorkloadOutcome failed(const char* status) {
  WorkloadOutcome o;
  o.status = status;
  return o;
}

TEST(Scoring, ContestScoreIsTheMeanOfPerWorkloadSpeedups) {
  // speedups 2, 0.5, 4: the mean (2.1667), not the geomean (1.587) nor total-time ratio.
  const std::vector<WorkloadOutcome> w = {passed(1, 2), passed(4, 2), passed(0.5, 2)};
  const Score s = score_outcomes(w, default_p_sweep());
  EXPECT_NEAR(s.contest, (2.0 + 0.5 + 4.0) / 3.0, 1e-12);
  EXPECT_NEAR(s.mean_speedup, s.contest, 1e-12);
  EXPECT_EQ(s.passed, 3u);
  EXPECT_EQ(s.total, 3u);
}

TEST(Scoring, AnyFailedOrMissingWorkloadZeroesTheScore) {
  for (const char* bad : {"INCORRECT_NUMERICAL", "RUNTIME_ERROR", "TIMEOUT", kMissing}) {
    const std::vector<WorkloadOutcome> w = {passed(1, 10), passed(1, 10), failed(bad)};
    const Score s = score_outcomes(w, default_p_sweep());
    EXPECT_EQ(s.contest, 0.0) << bad;
    EXPECT_NEAR(s.mean_speedup, 10.0, 1e-12) << "the mean over what passed is still reported";
    EXPECT_EQ(s.passed, 2u);
  }
}

TEST(Scoring, WinRateCountsStrictlyFasterWorkloadsOverAll) {
  // 2x, exactly 1x (not a win), 0.5x, and a failure: 1 win of 4.
  const std::vector<WorkloadOutcome> w = {passed(1, 2), passed(2, 2), passed(4, 2), failed("TIMEOUT")};
  EXPECT_DOUBLE_EQ(score_outcomes(w, default_p_sweep()).win_rate, 0.25);
}

TEST(Scoring, FastPIsTheShareCorrectAndFasterThanP) {
  const std::vector<WorkloadOutcome> w = {passed(1, 3), passed(1, 1.5), passed(1, 0.9),
                                          failed("RUNTIME_ERROR")};
  const std::vector<double> sweep = {0, 1, 1.5, 2, 5};
  const Score s = score_outcomes(w, sweep);
  ASSERT_EQ(s.fast_p.size(), sweep.size());
  EXPECT_DOUBLE_EQ(s.fast_p[0], 0.75);  // correct
  EXPECT_DOUBLE_EQ(s.fast_p[1], 0.50);  // 3x and 1.5x
  EXPECT_DOUBLE_EQ(s.fast_p[2], 0.25);  // 1.5x is not faster than 1.5x
  EXPECT_DOUBLE_EQ(s.fast_p[3], 0.25);
  EXPECT_DOUBLE_EQ(s.fast_p[4], 0.0);
}

TEST(Scoring, UnknownBaselineCountsAsCorrectOnlyAtPZero) {
  WorkloadOutcome no_base = passed(1, 1);
  no_base.baseline_ms.reset();
  const std::vector<WorkloadOutcome> w = {no_base, passed(1, 2)};
  const Score s = score_outcomes(w, std::vector<double>{0, 1});
  EXPECT_DOUBLE_EQ(s.fast_p[0], 1.0);
  EXPECT_DOUBLE_EQ(s.fast_p[1], 0.5);
  EXPECT_DOUBLE_EQ(s.contest, 2.0) << "the mean is over workloads whose speedup is known";
  EXPECT_EQ(s.with_speedup, 1u);
}

TEST(Scoring, SpeedOfLightGeomeanOverPassedWorkloads) {
  std::vector<WorkloadOutcome> w = {passed(1, 1), passed(1, 1), failed("TIMEOUT")};
  w[0].sol_fraction = 0.2;
  w[1].sol_fraction = 0.8;
  w[2].sol_fraction = 0.9;  // a failed workload's fraction is not evidence
  const Score s = score_outcomes(w, default_p_sweep());
  ASSERT_TRUE(s.sol_geomean.has_value());
  EXPECT_NEAR(*s.sol_geomean, 0.4, 1e-12);
}

TEST(Scoring, EmptyInputScoresZero) {
  const Score s = score_outcomes({}, default_p_sweep());
  EXPECT_EQ(s.contest, 0.0);
  EXPECT_EQ(s.win_rate, 0.0);
  EXPECT_FALSE(s.sol_geomean.has_value());
  EXPECT_EQ(default_p_sweep().size(), 10u);
}

}  // namespace
}  // namespace kh::report
