#include "tensor/random_fill.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "error/error.h"
#include "perf_guard.h"
#include "tensor/fast_hash.h"
#include "tensor/element_access.h"

namespace kh {
namespace {

bool same_bytes(const HostTensor& a, const HostTensor& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.bytes().data(), b.bytes().data(), a.nbytes()) == 0;
}

class EveryDType : public ::testing::TestWithParam<DType> {};

TEST_P(EveryDType, SameSeedSameBytesWhateverTheThreadCount) {
  const DType d = GetParam();
  const std::int64_t n = (std::int64_t{3} << 20) + 17;  // odd, and large enough to split
  HostTensor one(d, {n});
  HostTensor two(d, {n});
  HostTensor seven(d, {n});
  fill_random(one, 42, 1);
  fill_random(two, 42, 2);
  fill_random(seven, 42, 7);
  EXPECT_TRUE(same_bytes(one, two));
  EXPECT_TRUE(same_bytes(one, seven));
  HostTensor other(d, {n});
  fill_random(other, 43, 1);
  EXPECT_FALSE(same_bytes(one, other));
}

TEST_P(EveryDType, PrefixIsIndependentOfLength) {
  const DType d = GetParam();
  HostTensor small(d, {1000});
  HostTensor large(d, {4000});
  fill_random(small, 7);
  fill_random(large, 7);
  EXPECT_EQ(std::memcmp(small.bytes().data(), large.bytes().data(), small.nbytes()), 0);
}

INSTANTIATE_TEST_SUITE_P(DTypes, EveryDType,
                         ::testing::Values(DType::float32, DType::float16, DType::bfloat16,
                                           DType::float8_e4m3fn, DType::float8_e5m2, DType::float4_e2m1,
                                           DType::int64, DType::int32, DType::int16, DType::int8,
                                           DType::uint8, DType::boolean),
                         [](const auto& param_info) { return std::string(dtype_name(param_info.param)); });

TEST(RandomFill, NormalDistributionSanity) {
  HostTensor t(DType::float32, {1 << 20});
  fill_normal(t, 1);
  double sum = 0, sum2 = 0;
  std::size_t within1 = 0, beyond3 = 0, beyond_r = 0;
  for (float v : t.as<float>()) {
    sum += v;
    sum2 += static_cast<double>(v) * v;
    within1 += std::fabs(v) < 1.0f;
    beyond3 += std::fabs(v) > 3.0f;
    beyond_r += std::fabs(v) > 3.6541529f;  // the ziggurat's tail path
  }
  const auto n = static_cast<double>(t.numel());
  const double mean = sum / n;
  const double stddev = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.005);
  EXPECT_NEAR(stddev, 1.0, 0.005);
  EXPECT_NEAR(static_cast<double>(within1) / n, 0.682689, 0.003);
  EXPECT_NEAR(static_cast<double>(beyond3) / n, 0.0026998, 0.0004);
  EXPECT_NEAR(static_cast<double>(beyond_r) / n, 2.58e-4, 0.8e-4);
}

TEST(RandomFill, MeanAndStdApply) {
  HostTensor t(DType::float32, {1 << 18});
  fill_normal(t, 3, 10.0, 0.5);
  double sum = 0;
  for (float v : t.as<float>()) sum += v;
  EXPECT_NEAR(sum / static_cast<double>(t.numel()), 10.0, 0.01);
}

TEST(RandomFill, Fp8IsClampedToTwo) {
  for (DType d : {DType::float8_e4m3fn, DType::float8_e5m2}) {
    HostTensor t(d, {1 << 16});
    fill_random(t, 5);
    const std::vector<double> v = to_float64(t);
    double lo = 0, hi = 0;
    for (double x : v) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    EXPECT_EQ(lo, -2.0) << dtype_name(d) << ": 65536 draws reach the clamp";
    EXPECT_EQ(hi, 2.0) << dtype_name(d);
  }
}

TEST(RandomFill, Fp4StaysInRangeAndUsesCodes) {
  HostTensor t(DType::float4_e2m1, {1 << 16});
  fill_random(t, 5);
  std::size_t nonzero = 0;
  for (double x : to_float64(t)) {
    EXPECT_LE(std::fabs(x), 6.0);
    nonzero += x != 0.0;
  }
  EXPECT_GT(nonzero, t.numel() / 2);
}

TEST(RandomFill, IntegersStayInRangeAndCoverIt) {
  HostTensor t(DType::int32, {100000});
  fill_uniform_int(t, 9, -3, 4);
  std::vector<int> counts(7);
  for (std::int32_t v : t.as<std::int32_t>()) {
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 4);
    ++counts[static_cast<std::size_t>(v + 3)];
  }
  for (int c : counts) EXPECT_NEAR(c, 100000 / 7, 1000);
}

TEST(RandomFill, DefaultIntegerRanges) {
  HostTensor i8(DType::int8, {50000});
  fill_random(i8, 1);
  auto [lo, hi] = std::minmax_element(i8.as<std::int8_t>().begin(), i8.as<std::int8_t>().end());
  EXPECT_EQ(*lo, -128);
  EXPECT_EQ(*hi, 127);
  HostTensor u8(DType::uint8, {50000});
  fill_random(u8, 1);
  auto [ulo, uhi] = std::minmax_element(u8.as<std::uint8_t>().begin(), u8.as<std::uint8_t>().end());
  EXPECT_EQ(*ulo, 0);
  EXPECT_EQ(*uhi, 127);
  HostTensor i64(DType::int64, {50000});
  fill_random(i64, 1);
  for (std::int64_t v : i64.as<std::int64_t>()) ASSERT_TRUE(v >= -128 && v < 128);
}

TEST(RandomFill, BoolIsAFairCoin) {
  HostTensor t(DType::boolean, {100000});
  fill_bool(t, 2);
  std::size_t ones = 0;
  for (std::uint8_t v : t.as<std::uint8_t>()) {
    ASSERT_LE(v, 1);
    ones += v;
  }
  EXPECT_NEAR(static_cast<double>(ones), 50000.0, 1000.0);
}

TEST(RandomFill, RejectsMisuse) {
  HostTensor i(DType::int8, {4});
  EXPECT_THROW(fill_normal(i, 1), Error);
  EXPECT_THROW(fill_uniform_int(i, 1, 5, 5), Error);
  EXPECT_THROW(fill_uniform_int(i, 1, 0, 300), Error);
  HostTensor f(DType::float32, {4});
  EXPECT_THROW(fill_bool(f, 1), Error);
  HostTensor b(DType::boolean, {4});
  EXPECT_THROW(fill_uniform_int(b, 1, 0, 2), Error);
}

TEST(RandomFill, Float32FillKeepsItsFastPathOnOneCore) {
  KH_SKIP_UNLESS_OPTIMIZED();
  HostTensor t(DType::float32, {1 << 25});
  fill_normal(t, 1, 0.0, 1.0, 1);  // warm the pages and the tables
  const double start = thread_cpu_seconds();
  fill_normal(t, 2, 0.0, 1.0, 1);
  const double s = thread_cpu_seconds() - start;
  const double rate = static_cast<double>(t.numel()) / s;
  RecordProperty("elements_per_second", std::to_string(rate));
  std::printf("float32 normal fill: %.0f M elements/s\n", rate / 1e6);
  // About 300M/s on an idle core of the 2-core CI VM, and 130M/s seen with the other core
  // and its cache busy: this floor catches a generator that lost its fast path (ten times
  // slower), not a few percent. The speed itself is a benchmark's business.
  EXPECT_GT(rate, 60e6);
}

}  // namespace
}  // namespace kh
