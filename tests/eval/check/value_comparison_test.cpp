#include "eval/check/value_comparison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace kh {

TEST(ValueComparison, ElementFailsOnlyWhenBothToleranceBoundsAreExceeded) {
  Tolerance t{.atol = 0.1, .rtol = 0.1, .required_matched_ratio = 1.0};
  // 0.5 vs 100: abs 0.5 > atol, rel 0.005 < rtol -> matched.
  // 0.05 vs 0.0: abs 0.05 < atol -> matched.
  // 1.5 vs 1.0: abs 0.5 > atol and rel 0.5 > rtol -> mismatch.
  std::vector<double> a{100.5, 0.05, 1.5};
  std::vector<double> r{100.0, 0.0, 1.0};
  auto c = compare_values(a, r, t);
  EXPECT_EQ(c.matched, 2u);
  EXPECT_EQ(c.first_mismatch, 2u);
  EXPECT_FALSE(c.passes(t));
  EXPECT_DOUBLE_EQ(c.max_abs_error, 0.5);
  t.required_matched_ratio = 0.6;
  EXPECT_TRUE(c.passes(t));
}

TEST(ValueComparison, NanInCandidateFailsEvenWithHugeTolerance) {
  Tolerance t{.atol = 1e30, .rtol = 1e30, .required_matched_ratio = 0.5};
  std::vector<double> a{1.0, std::numeric_limits<double>::quiet_NaN()};
  std::vector<double> r{1.0, 2.0};
  auto c = compare_values(a, r, t);
  EXPECT_EQ(c.non_finite, 1u);
  EXPECT_FALSE(c.passes(t));
}

TEST(ValueComparison, NonFiniteReferenceMustBeMatchedExactly) {
  Tolerance t;
  const double inf = std::numeric_limits<double>::infinity();
  auto c = compare_values(std::vector<double>{inf, -inf}, std::vector<double>{inf, inf}, t);
  EXPECT_EQ(c.matched, 1u);
  EXPECT_EQ(c.non_finite, 0u);
}

TEST(ValueComparison, DetectsZeroAndConstantOutputs) {
  Tolerance t;
  auto c = compare_values(std::vector<double>{0, 0, 0}, std::vector<double>{0.001, 0.002, 0.003}, t);
  EXPECT_TRUE(c.actual_all_zero);
  EXPECT_TRUE(c.actual_constant);
  EXPECT_FALSE(c.reference_all_zero);
  EXPECT_FALSE(c.reference_constant);
  EXPECT_TRUE(c.passes(t)) << "tolerance alone cannot see tiny references; the zero check must";
}

}  // namespace kh
