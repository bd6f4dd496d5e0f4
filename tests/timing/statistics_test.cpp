#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "timing/latency_comparison.h"
#include "timing/sample_statistics.h"
#include "timing/stop_criterion.h"

namespace kh {

TEST(SampleStatistics, QuantilesInterpolateLinearly) {
  std::vector<double> v{4, 1, 3, 2};
  auto s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q1, 1.75);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.stdev, std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_LE(s.ci_low, s.median);
  EXPECT_GE(s.ci_high, s.median);
}

TEST(SampleStatistics, MedianIntervalCoversTrueMedianMostOfTheTime) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(0.0, 0.5);  // true median exp(0) = 1
  int covered = 0;
  for (int rep = 0; rep < 400; ++rep) {
    std::vector<double> v(60);
    for (double& x : v) x = d(rng);
    auto s = summarize(v);
    covered += (s.ci_low <= 1.0 && 1.0 <= s.ci_high) ? 1 : 0;
  }
  EXPECT_GT(covered, 360);  // nominal 95%; at least 90% over 400 repetitions
}

TEST(StopCriterion, StdRelNeedsCountTimeAndLowNoise) {
  StopParameters p{.max_noise = 0.01, .min_samples = 10, .min_time_s = 0.001};
  auto c = make_stop_criterion("stdrel", p);
  for (int i = 0; i < 9; ++i) c->add(1.0);
  EXPECT_FALSE(c->is_finished()) << "fewer than min_samples";
  c->add(1.0);
  EXPECT_TRUE(c->is_finished());

  auto noisy = make_stop_criterion("stdrel", p);
  for (int i = 0; i < 50; ++i) noisy->add(i % 2 ? 1.0 : 2.0);
  EXPECT_FALSE(noisy->is_finished());
  EXPECT_NE(noisy->reason().find("noise"), std::string::npos);

  StopParameters slow = p;
  slow.min_time_s = 1.0;
  auto short_run = make_stop_criterion("stdrel", slow);
  for (int i = 0; i < 100; ++i) short_run->add(1.0);  // 100 ms < 1 s
  EXPECT_FALSE(short_run->is_finished());
}

TEST(StopCriterion, UnknownNameIsAClearError) {
  EXPECT_THROW(
      {
        try {
          (void)make_stop_criterion("entropy?", StopParameters{});
        } catch (const std::exception& e) {
          EXPECT_NE(std::string(e.what()).find("unknown stopping criterion 'entropy?'"), std::string::npos);
          throw;
        }
      },
      std::exception);
}

TEST(LatencyComparison, DisjointIntervalsDecideOverlapsDoNot) {
  std::vector<double> fast(50, 1.0), slow(50, 2.0), fast_noisy, slow_noisy;
  for (int i = 0; i < 50; ++i) {
    fast[static_cast<std::size_t>(i)] += 0.001 * i;
    slow[static_cast<std::size_t>(i)] += 0.001 * i;
    fast_noisy.push_back(1.0 + (i % 10) * 0.1);
    slow_noisy.push_back(1.05 + (i % 10) * 0.1);
  }
  EXPECT_EQ(compare_latency(summarize(fast), summarize(slow)), Comparison::faster);
  EXPECT_EQ(compare_latency(summarize(slow), summarize(fast)), Comparison::slower);
  EXPECT_EQ(compare_latency(summarize(fast), summarize(fast)), Comparison::same);
  EXPECT_EQ(compare_latency(summarize(fast_noisy), summarize(slow_noisy)), Comparison::ambiguous);
}

}  // namespace kh
