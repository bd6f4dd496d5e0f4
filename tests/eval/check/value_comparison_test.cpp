#include "eval/check/value_comparison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "error/error.h"
#include "eval/check/detail/finite_float_comparison.h"
#include "tensor/element_access.h"

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

// compare_tensors must give what compare_values gives on the widened arrays, across
// chunk and thread boundaries: a mismatch past the first chunk, non-finite values, and
// a tensor large enough to be split across threads.
TEST(ValueComparison, TensorsComparedInChunksMatchTheWholeArrays) {
  const std::size_t n = (std::size_t{1} << 22) * 3 + 12345;
  HostTensor a(DType::bfloat16, {static_cast<std::int64_t>(n)});
  HostTensor r(DType::bfloat16, {static_cast<std::int64_t>(n)});
  for (std::size_t i = 0; i < n; ++i) {
    const double v = std::sin(static_cast<double>(i) * 1e-3);
    write_from_double(r, i, v);
    write_from_double(a, i, v + ((i % 100003) == 99999 ? 0.25 : 0.0));
  }
  write_from_double(a, 70000, std::numeric_limits<double>::quiet_NaN());
  const Tolerance t{.atol = 1e-2, .rtol = 1e-2, .required_matched_ratio = 0.9};
  const ValueComparison whole = compare_values(to_float64(a), to_float64(r), t);
  const ValueComparison chunked = compare_tensors(a, r, t);
  EXPECT_EQ(chunked.elements, whole.elements);
  EXPECT_EQ(chunked.matched, whole.matched);
  EXPECT_EQ(chunked.non_finite, whole.non_finite);
  EXPECT_EQ(chunked.first_mismatch, whole.first_mismatch);
  EXPECT_EQ(chunked.max_abs_error, whole.max_abs_error);
  EXPECT_EQ(chunked.max_rel_error, whole.max_rel_error);
  EXPECT_NEAR(chunked.mean_abs_error, whole.mean_abs_error, 1e-12);
  EXPECT_EQ(chunked.actual_constant, whole.actual_constant);
  EXPECT_EQ(chunked.reference_all_zero, whole.reference_all_zero);
  EXPECT_EQ(whole.first_mismatch, 70000u) << "the NaN, in the second chunk";
}

TEST(ValueComparison, ConstantTensorAcrossChunksIsSeenAsConstant) {
  const std::size_t n = std::size_t{1} << 20;
  HostTensor a(DType::float32, {static_cast<std::int64_t>(n)});
  HostTensor r(DType::float32, {static_cast<std::int64_t>(n)});
  for (std::size_t i = 0; i < n; ++i) {
    write_from_double(a, i, 0.5);
    write_from_double(r, i, i == n - 1 ? 0.75 : 0.5);  // differs in the last chunk only
  }
  const ValueComparison c = compare_tensors(a, r, Tolerance{});
  EXPECT_TRUE(c.actual_constant);
  EXPECT_FALSE(c.reference_constant);
  EXPECT_EQ(c.first_mismatch, n - 1);
}

// The vectorised path for float formats must give what the scalar rule gives, for every
// float dtype, at sizes that end mid-vector and mid-block, with mismatches, exact zeros
// and constant outputs; the maximum relative error may differ in its last bits only.
void expect_same_as_scalar(const HostTensor& a, const HostTensor& r, const Tolerance& t,
                           const std::string& what) {
  const ValueComparison whole = compare_values(to_float64(a), to_float64(r), t);
  const ValueComparison fast = compare_tensors(a, r, t);
  EXPECT_EQ(fast.elements, whole.elements) << what;
  EXPECT_EQ(fast.matched, whole.matched) << what;
  EXPECT_EQ(fast.non_finite, whole.non_finite) << what;
  EXPECT_EQ(fast.first_mismatch, whole.first_mismatch) << what;
  EXPECT_EQ(fast.max_abs_error, whole.max_abs_error) << what;
  EXPECT_DOUBLE_EQ(fast.max_rel_error, whole.max_rel_error) << what;
  EXPECT_NEAR(fast.mean_abs_error, whole.mean_abs_error, 1e-12 + 1e-12 * whole.mean_abs_error) << what;
  EXPECT_EQ(fast.actual_all_zero, whole.actual_all_zero) << what;
  EXPECT_EQ(fast.reference_all_zero, whole.reference_all_zero) << what;
  EXPECT_EQ(fast.actual_constant, whole.actual_constant) << what;
  EXPECT_EQ(fast.reference_constant, whole.reference_constant) << what;
}

TEST(ValueComparison, FloatFormatsGiveTheScalarRulesResultAtEverySize) {
  const Tolerance t{.atol = 1e-3, .rtol = 1e-3, .required_matched_ratio = 0.5};
  std::mt19937 rng(7);
  std::normal_distribution<double> value(0.0, 3.0);
  for (const DType d : {DType::float32, DType::bfloat16, DType::float16}) {
    for (const std::size_t n : {1UL, 3UL, 5UL, 2047UL, 2049UL, 65543UL, 300001UL}) {
      for (const char* kind : {"random", "zeros", "constant", "one-off"}) {
        HostTensor a(d, {static_cast<std::int64_t>(n)});
        HostTensor r(d, {static_cast<std::int64_t>(n)});
        const std::string k = kind;
        for (std::size_t i = 0; i < n; ++i) {
          const double v = k == "random" ? value(rng) : k == "constant" ? 1.5 : 0.0;
          write_from_double(r, i, v);
          const bool off = k == "random" ? i % 37 == 5 : k == "one-off" && i == n / 2;
          write_from_double(a, i, off ? v + 0.5 : v);
        }
        expect_same_as_scalar(a, r, t, std::string(dtype_name(d)) + " n=" + std::to_string(n) + " " + k);
      }
    }
  }
}

// The vectorised fp16 widening against the scalar decode, on every finite code: compared
// with zeros (every error is the value itself, so the mean and maximum see each one) and
// with the next code.
TEST(ValueComparison, EveryFiniteFloat16CodeWidensAsTheScalarRuleReadsIt) {
  std::vector<std::uint16_t> codes;
  for (std::uint32_t c = 0; c <= 0xFFFFu; ++c)
    if ((c & 0x7C00u) != 0x7C00u) codes.push_back(static_cast<std::uint16_t>(c));
  const auto n = static_cast<std::int64_t>(codes.size());
  HostTensor a(DType::float16, {n});
  HostTensor zeros(DType::float16, {n});
  HostTensor next(DType::float16, {n});
  auto* pa = reinterpret_cast<std::uint16_t*>(a.bytes().data());
  auto* pn = reinterpret_cast<std::uint16_t*>(next.bytes().data());
  for (std::size_t i = 0; i < codes.size(); ++i) {
    pa[i] = codes[i];
    pn[i] = codes[(i + 1) % codes.size()];
  }
  const Tolerance t{.atol = 1e-3, .rtol = 1e-3, .required_matched_ratio = 0.0};
  expect_same_as_scalar(a, zeros, t, "every finite fp16 code against zeros");
  expect_same_as_scalar(a, next, t, "every finite fp16 code against the next");
  EXPECT_EQ(compare_tensors(a, zeros, t).max_abs_error, 65504.0) << "the largest finite fp16";
}

TEST(ValueComparison, ANonFiniteValueSendsItsRangeToTheScalarRule) {
  HostTensor a(DType::bfloat16, {4096});
  HostTensor r(DType::bfloat16, {4096});
  for (std::size_t i = 0; i < 4096; ++i) {
    write_from_double(a, i, 1.0);
    write_from_double(r, i, 1.0);
  }
  const Tolerance t{};
  ASSERT_TRUE(detail::compare_finite_floats(a, r, 0, 4096, t).has_value());
  write_from_double(r, 4000, std::numeric_limits<double>::infinity());
  EXPECT_FALSE(detail::compare_finite_floats(a, r, 0, 4096, t).has_value()) << "Inf in the reference";
  EXPECT_TRUE(detail::compare_finite_floats(a, r, 0, 3000, t).has_value()) << "the Inf lies past the range";
  write_from_double(a, 10, std::numeric_limits<double>::quiet_NaN());
  EXPECT_FALSE(detail::compare_finite_floats(a, r, 0, 3000, t).has_value()) << "NaN in the candidate";
  expect_same_as_scalar(a, r, t, "NaN and Inf");
  EXPECT_EQ(compare_tensors(a, r, t).non_finite, 1U);
}

TEST(ValueComparison, TensorsOfDifferentSizesAreRefused) {
  EXPECT_THROW(
      (void)compare_tensors(HostTensor(DType::float32, {3}), HostTensor(DType::float32, {4}), Tolerance{}),
      Error);
}

}  // namespace kh
