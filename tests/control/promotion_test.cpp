// The promotion rule with synthetic sweeps: each condition alone can refuse.
#include "control/promotion.h"

#include <gtest/gtest.h>

namespace kh::control {
namespace {

// Three workloads at the given latencies (ms), all passed, with `noise` each.
Sweep sweep(std::vector<double> ms, double noise = 0.005, std::string protocol = "official") {
  Sweep s;
  s.protocol = std::move(protocol);
  for (std::size_t i = 0; i < ms.size(); ++i)
    s.workloads.push_back({"w" + std::to_string(i), "PASSED", ms[i], noise, {}, 0});
  return s;
}

PromotionInput clear_win() {
  PromotionInput in;
  in.baseline = {sweep({1.0, 2.0, 4.0}), sweep({1.01, 2.0, 3.98})};
  in.contender = {sweep({0.5, 1.0, 2.0}), sweep({0.5, 1.01, 2.0})};
  in.baseline_confirm = sweep({1.0, 2.0, 4.0}, 0.01, "robust");
  in.contender_confirm = sweep({0.5, 1.0, 2.0}, 0.01, "robust");
  return in;
}

TEST(Promotion, AClearWinOnEveryConditionIsPromoted) {
  const PromotionVerdict v = judge_promotion(clear_win());
  EXPECT_TRUE(v.promote) << v.json().dump();
  EXPECT_EQ(v.better_repeats, 2);
  ASSERT_TRUE(v.confirm_speedup);
  EXPECT_NEAR(*v.confirm_speedup, 2.0, 1e-9);
  EXPECT_TRUE(v.failures.empty());
}

TEST(Promotion, OneRepeatIsNotEnough) {
  PromotionInput in = clear_win();
  in.contender[1] = sweep({1.0, 2.0, 4.0});  // the second repeat shows nothing
  const PromotionVerdict v = judge_promotion(in);
  EXPECT_FALSE(v.promote);
  EXPECT_EQ(v.better_repeats, 1);
}

TEST(Promotion, WithoutAPairedBaselineNothingIsPromoted) {
  PromotionInput in = clear_win();
  in.baseline.pop_back();
  const PromotionVerdict v = judge_promotion(in);
  EXPECT_FALSE(v.promote);
  ASSERT_FALSE(v.failures.empty());
  EXPECT_NE(v.failures.front().find("paired baseline"), std::string::npos);
}

TEST(Promotion, AGainWithinTheNoiseIsRefused) {
  PromotionInput in = clear_win();
  // 5% faster in both repeats, but the baseline drifted 8% between its own repeats.
  in.baseline = {sweep({1.0, 1.0, 1.0}), sweep({1.08, 1.08, 1.08})};
  in.contender = {sweep({0.95, 0.95, 0.95}), sweep({1.03, 1.03, 1.03})};
  const PromotionVerdict v = judge_promotion(in);
  EXPECT_FALSE(v.promote);
  EXPECT_GE(v.noise, 0.07);  // the drift between repeats (1.08 / 1.0, 1.03 / 0.95)
  EXPECT_EQ(v.better_repeats, 0);
}

TEST(Promotion, TheNoiseFloorHoldsWhenMeasurementsAreQuiet) {
  PromotionInput in = clear_win();
  in.baseline = {sweep({1.0, 1.0, 1.0}, 0), sweep({1.0, 1.0, 1.0}, 0)};
  in.contender = {sweep({0.99, 0.99, 0.99}, 0), sweep({0.99, 0.99, 0.99}, 0)};
  in.baseline_confirm = sweep({1.0, 1.0, 1.0}, 0, "robust");
  in.contender_confirm = sweep({0.99, 0.99, 0.99}, 0, "robust");
  const PromotionVerdict v = judge_promotion(in);
  EXPECT_FALSE(v.promote) << "1% is below the 2% floor";
  EXPECT_DOUBLE_EQ(v.noise, 0.02);
}

TEST(Promotion, AFailedWorkloadRefusesEvenAFastContender) {
  PromotionInput in = clear_win();
  in.contender[1].workloads[2].status = "INCORRECT_NUMERICAL";
  in.contender[1].workloads[2].latency_ms.reset();
  const PromotionVerdict v = judge_promotion(in);
  EXPECT_FALSE(v.promote);
  EXPECT_NE(v.json().dump().find("N/N"), std::string::npos);
}

TEST(Promotion, TheOtherProtocolMustAgree) {
  PromotionInput in = clear_win();
  in.contender_confirm = sweep({1.1, 2.2, 4.4}, 0.01, "robust");  // slower under the robust protocol
  const PromotionVerdict v = judge_promotion(in);
  EXPECT_FALSE(v.promote);
  EXPECT_FALSE(v.confirmed);
  EXPECT_EQ(v.better_repeats, 2);
}

TEST(Promotion, NoConfirmationSweepNoPromotion) {
  PromotionInput in = clear_win();
  in.contender_confirm.reset();
  EXPECT_FALSE(judge_promotion(in).promote);
}

TEST(Promotion, PairedSpeedupIsTheGeometricMeanOverSharedTimedWorkloads) {
  Sweep b = sweep({1.0, 4.0});
  Sweep c = sweep({0.5, 4.0});
  ASSERT_TRUE(paired_speedup(b, c));
  EXPECT_NEAR(*paired_speedup(b, c), std::sqrt(2.0), 1e-12);
  c.workloads[0].latency_ms.reset();
  EXPECT_NEAR(*paired_speedup(b, c), 1.0, 1e-12);
}

}  // namespace
}  // namespace kh::control
