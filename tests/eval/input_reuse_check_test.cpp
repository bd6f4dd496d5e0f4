// InputReuseCheck on made-up samples: cached answers on seen sets are caught, a kernel
// whose time depends on its data (not on having seen it) is not, and too little evidence
// decides nothing.
#include "eval/input_reuse_check.h"

#include <gtest/gtest.h>

#include <vector>

namespace kh {
namespace {

// One trial over `sets` sets, warm-ups on set 0, `rounds` times round from set 0 (as
// input_set_of_call goes): set s takes first_ms(s) on its first timed call and
// later_ms(s) after.
template <typename First, typename Later>
std::vector<TimedSample> trial(int sets, int rounds, First first_ms, Later later_ms) {
  std::vector<TimedSample> out;
  std::vector<bool> seen(static_cast<std::size_t>(sets), false);
  seen[0] = true;
  for (int i = 0; i < sets * rounds; ++i) {
    const int set = i % sets;
    TimedSample s;
    s.input_set = set;
    s.ms = seen[static_cast<std::size_t>(set)] ? later_ms(set) : first_ms(set);
    seen[static_cast<std::size_t>(set)] = true;
    out.push_back(s);
  }
  return out;
}

TEST(InputReuseCheck, CachedAnswersOnSeenSetsAreCaught) {
  InputReuseCheck check;
  check.add_trial(trial(
                      13, 4, [](int s) { return 0.35 + 0.01 * s; }, [](int) { return 0.02; }),
                  0);
  ASSERT_TRUE(check.median_ratio());
  EXPECT_LT(*check.median_ratio(), 0.1);
  ASSERT_TRUE(check.verdict());
  EXPECT_NE(check.verdict()->find("outputs cached across calls"), std::string::npos) << *check.verdict();
  EXPECT_NE(check.verdict()->find("over 12 sets"), std::string::npos) << *check.verdict();
}

TEST(InputReuseCheck, DataDependentTimesAreNotCaching) {
  // Each set has its own latency (sequence lengths differ), the same on every call of it
  // to within noise; the sets' latencies differ by 2x, more than any cache would save.
  InputReuseCheck check;
  check.add_trial(
      trial(
          13, 4, [](int s) { return 0.3 + 0.025 * s; }, [](int s) { return (0.3 + 0.025 * s) * 0.97; }),
      0);
  ASSERT_TRUE(check.median_ratio());
  EXPECT_NEAR(*check.median_ratio(), 0.97, 1e-9);
  EXPECT_FALSE(check.verdict());
}

TEST(InputReuseCheck, EvidenceAddsUpOverTrials) {
  // Two sets: one first call a trial (set 1), so only the trials together decide.
  InputReuseCheck check;
  const auto cached = [] {
    return trial(
        2, 5, [](int) { return 2.0; }, [](int) { return 0.1; });
  };
  check.add_trial(cached(), 0);
  check.add_trial(cached(), 0);
  EXPECT_FALSE(check.median_ratio()) << "two sets with a first and later call are too few";
  EXPECT_FALSE(check.verdict());
  check.add_trial(cached(), 0);
  EXPECT_TRUE(check.verdict());
}

TEST(InputReuseCheck, TheWarmSetAndInvalidSamplesAreNeverAFirstCall) {
  InputReuseCheck check;
  // Set 0 was called by the warm-ups: its fast timed calls are not compared with anything.
  std::vector<TimedSample> samples = trial(
      4, 3, [](int) { return 1.0; }, [](int) { return 1.0; });
  for (TimedSample& s : samples) {
    if (s.input_set == 0) s.ms = 0.01;
  }
  // An invalid sample (no device activity in its window) is dropped, not taken as first.
  TimedSample invalid;
  invalid.input_set = 5;
  invalid.ms = 100.0;
  invalid.valid = false;
  samples.insert(samples.begin(), invalid);
  check.add_trial(samples, 0);
  ASSERT_TRUE(check.median_ratio());
  EXPECT_DOUBLE_EQ(*check.median_ratio(), 1.0);
  // Without warm-ups the trial's first call is its set's first, and also the loop's first
  // timed call, which pays one-off costs (2.3x on the H200): that set is left out.
  InputReuseCheck cold;
  std::vector<TimedSample> unwarmed = trial(
      4, 3, [](int) { return 1.0; }, [](int) { return 1.0; });
  unwarmed.front().ms = 2.3;
  cold.add_trial(unwarmed, std::nullopt);
  ASSERT_TRUE(cold.median_ratio());
  EXPECT_DOUBLE_EQ(*cold.median_ratio(), 1.0);
}

}  // namespace
}  // namespace kh
