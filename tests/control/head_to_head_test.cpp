// The ablation's head-to-head judged from synthetic sweeps, and the reported speedup of a
// promotion built from confirmation sweeps: ratios, noise, verdicts, and the records'
// JSON read back exactly as reports read them.
#include <gtest/gtest.h>

#include "control/head_to_head_judge.h"
#include "control/reported_speedup.h"

namespace kh::control {
namespace {

Sweep sweep(std::vector<double> ms, double noise = 0.005, std::int64_t run = 0) {
  Sweep s;
  s.protocol = "robust";
  s.run_id = run;
  for (std::size_t i = 0; i < ms.size(); ++i)
    s.workloads.push_back({"w" + std::to_string(i), "PASSED", ms[i], noise, {}, 0});
  return s;
}

std::vector<double> scaled(std::vector<double> ms, double f) {
  for (double& m : ms) m *= f;
  return ms;
}

const std::vector<double> kStart = {1.0, 2.0, 4.0};

// Arm a's best twice as fast as the start, arm b's 1.25 times, in two passes with drift.
HeadToHeadInput two_arms() {
  HeadToHeadInput in;
  in.start = "S";
  in.arms = {{"a", "A"}, {"b", "B"}};
  in.min_noise = 0.02;
  for (double drift : {1.0, 1.01}) {
    in.passes.push_back({{"S", sweep(scaled(kStart, drift))},
                         {"A", sweep(scaled(kStart, 0.5 * drift))},
                         {"B", sweep(scaled(kStart, 0.8 * drift))}});
  }
  return in;
}

TEST(HeadToHead, EachArmOverTheStartAndThePairedRatio) {
  const report::HeadToHead h = judge_head_to_head(two_arms());
  EXPECT_EQ(h.passes, 2);
  EXPECT_EQ(h.protocol, "robust");
  ASSERT_EQ(h.arms.size(), 2u);
  EXPECT_NEAR(*h.arms[0].over_start, 2.0, 1e-9);
  EXPECT_NEAR(*h.arms[1].over_start, 1.25, 1e-9);
  ASSERT_EQ(h.pairs.size(), 1u);
  EXPECT_EQ(h.pairs[0].a, "a");
  EXPECT_EQ(h.pairs[0].b, "b");
  EXPECT_NEAR(*h.pairs[0].ratio, 1.6, 1e-9);
  EXPECT_EQ(h.pairs[0].verdict, "faster");
  EXPECT_DOUBLE_EQ(h.pairs[0].noise, 0.02);
  EXPECT_NEAR(h.pairs[0].drift, 0, 1e-9) << "drift that hits both alike cancels in the ratio";
}

TEST(HeadToHead, NoiseWidensTheBandAndSameAndAmbiguousAreTold) {
  HeadToHeadInput in = two_arms();
  for (auto& pass : in.passes) pass["B"] = sweep(scaled(kStart, 0.51), 0.05);
  const report::HeadToHead h = judge_head_to_head(in);
  EXPECT_DOUBLE_EQ(h.pairs[0].noise, 0.05) << "the sweeps' own noise is above the floor";
  EXPECT_EQ(h.pairs[0].verdict, "same") << *h.pairs[0].ratio;

  const std::vector<std::optional<double>> split = {1.10, 1.01};
  EXPECT_EQ(head_to_head_verdict(split, 0.02), "ambiguous");
  const std::vector<std::optional<double>> slower = {0.8, 0.85};
  EXPECT_EQ(head_to_head_verdict(slower, 0.02), "slower");
  const std::vector<std::optional<double>> missing = {1.5, std::nullopt};
  EXPECT_EQ(head_to_head_verdict(missing, 0.02), "ambiguous");
  EXPECT_EQ(head_to_head_verdict({}, 0.02), "ambiguous");
}

TEST(HeadToHead, ItsJsonReadsBackAsReportsReadIt) {
  const report::HeadToHead h = judge_head_to_head(two_arms());
  const auto back = report::HeadToHead::from_json(h.json());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->json(), h.json());
  EXPECT_FALSE(report::HeadToHead::from_json(nlohmann::ordered_json::array()).has_value());
  EXPECT_FALSE(report::HeadToHead::from_json({{"arms", 3}})->arms.size());
}

TEST(ReportedSpeedup, IsTheGeomeanOfTheConfirmationSweepsWithTheGateAsEvidence) {
  PromotionVerdict v;
  v.confirm_speedup = 1.7;
  v.repeats = {{1, 2.1, true}, {2, 2.05, true}};
  const auto s = reported_speedup(sweep(kStart, 0.01, 11), sweep(scaled(kStart, 0.5), 0.03, 12), "S", v,
                                  PromotionRule{2, 0.02});
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(s->over_baseline, 2.0, 1e-9);
  EXPECT_EQ(s->baseline, "S");
  EXPECT_EQ(s->protocol, "robust");
  EXPECT_EQ(s->baseline_run, 11);
  EXPECT_EQ(s->candidate_run, 12);
  EXPECT_DOUBLE_EQ(s->noise, 0.03);
  ASSERT_EQ(s->workloads.size(), 3u);
  EXPECT_DOUBLE_EQ(s->workloads[2].baseline_ms, 4.0);
  EXPECT_DOUBLE_EQ(s->workloads[2].candidate_ms, 2.0);
  EXPECT_EQ(s->over_replaced, 1.7);
  ASSERT_EQ(s->gate_repeats.size(), 2u);
  EXPECT_EQ(s->gate_repeats[0], 2.1);

  const auto back = report::PromotedSpeedup::from_evidence({{"speedup", s->json()}});
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->json(), s->json());
  EXPECT_FALSE(report::PromotedSpeedup::from_evidence({{"speedup", nullptr}}).has_value());
  EXPECT_FALSE(
      report::PromotedSpeedup::from_evidence({{"speedup", {{"over_baseline", "fast"}}}}).has_value());
  EXPECT_FALSE(reported_speedup(sweep({}), sweep(kStart), "S", v, PromotionRule{2, 0.02}).has_value())
      << "no common workload";
  EXPECT_EQ(report::format_speedup(1.0814), "1.081x");
}

}  // namespace
}  // namespace kh::control
