// The steps the host twin and the device share (tensor/detail/*_steps.h, portable_math.h),
// run here as host code: the portable exp and log are accurate, and the fill's element
// steps are exactly what fill_random stores. tests/eval/device_inputs_gpu_test.cpp runs
// the same steps on the GPU and compares the bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tensor/float_formats.h"
#include "tensor/portable/fill_steps.h"
#include "tensor/portable/portable_math.h"
#include "tensor/random_fill.h"
#include "tensor/standard_normal.h"

namespace kh {
namespace {

double relative_error(double got, double want) { return std::fabs(got - want) / std::fabs(want); }

TEST(PortableMath, ExpIsAccurateOverItsRange) {
  double worst = 0;
  // Normal results only: a subnormal result carries fewer bits, so its relative error
  // says nothing of the method.
  for (double x = -708.0; x <= 709.0; x += 0.37)
    worst = std::max(worst, relative_error(detail::portable_exp(x), std::exp(x)));
  for (double x = -1.0; x <= 1.0; x += 1.0 / 1024)
    worst = std::max(worst, relative_error(detail::portable_exp(x), std::exp(x)));
  EXPECT_LT(worst, 4e-16 * 8) << "a few units in the last place";
  EXPECT_EQ(detail::portable_exp(0.0), 1.0);
  EXPECT_EQ(detail::portable_exp(-800.0), 0.0);
  EXPECT_TRUE(std::isinf(detail::portable_exp(710.0)));
  EXPECT_GT(detail::portable_exp(-744.0), 0.0) << "subnormal results are kept";
}

TEST(PortableMath, LogIsAccurateOverItsRange) {
  double worst = 0;
  for (double x = 1e-300; x < 1e300; x *= 1.37)
    worst = std::max(worst, relative_error(detail::portable_log(x), std::log(x)));
  for (double x = 0.999; x < 1.001; x += 1e-6) {
    if (x == 1.0) continue;
    worst = std::max(worst, relative_error(detail::portable_log(x), std::log(x)));
  }
  EXPECT_LT(worst, 4e-16 * 8);
  EXPECT_EQ(detail::portable_log(1.0), 0.0);
  EXPECT_NEAR(detail::portable_log(5e-324), std::log(5e-324), 1e-12) << "subnormal arguments";
  EXPECT_TRUE(std::isinf(detail::portable_log(0.0)));
  EXPECT_TRUE(std::isnan(detail::portable_log(-1.0)));
}

TEST(PortableMath, Expm1KeepsItsDigitsNearZero) {
  for (double x : {1e-12, -3e-9, 1e-3, 0.1, -0.4, 0.49, 0.51, 2.0, -5.0})
    EXPECT_LT(relative_error(detail::portable_expm1(x), std::expm1(x)), 1e-15) << x;
}

TEST(PortableSteps, NormalStepIsTheNormalStream) {
  const NormalStream stream(123, 456);
  for (std::uint64_t i = 0; i < 200000; ++i)
    ASSERT_EQ(stream(i), detail::normal_at(detail::ziggurat_tables(), 123, 456, i)) << i;
}

// fill_random stores generate_element<dtype>(rule, tables, i) at element i, for every
// dtype: what the device kernel stores.
template <std::uint8_t Code>
void expect_fill_is_the_step(DType dtype, std::uint64_t seed) {
  using T = typename detail::Stored<Code>::type;
  HostTensor t(dtype, {4099});
  fill_random(t, seed, 3);
  const FillRule rule = default_rule(dtype, seed);
  for (std::size_t i = 0; i < t.numel(); ++i) {
    const T want = detail::generate_element<Code>(rule, detail::ziggurat_tables(), i);
    T got;
    std::memcpy(&got, t.bytes().data() + i * sizeof(T), sizeof(T));
    ASSERT_EQ(std::memcmp(&got, &want, sizeof(T)), 0) << dtype_name(dtype) << " element " << i;
  }
}

TEST(PortableSteps, FillStoresTheElementSteps) {
  namespace c = detail::dtype_code;
  expect_fill_is_the_step<c::float32>(DType::float32, 1);
  expect_fill_is_the_step<c::float16>(DType::float16, 2);
  expect_fill_is_the_step<c::bfloat16>(DType::bfloat16, 3);
  expect_fill_is_the_step<c::float8_e4m3fn>(DType::float8_e4m3fn, 4);
  expect_fill_is_the_step<c::float8_e5m2>(DType::float8_e5m2, 5);
  expect_fill_is_the_step<c::int64>(DType::int64, 6);
  expect_fill_is_the_step<c::int32>(DType::int32, 7);
  expect_fill_is_the_step<c::int16>(DType::int16, 8);
  expect_fill_is_the_step<c::int8>(DType::int8, 9);
  expect_fill_is_the_step<c::uint8>(DType::uint8, 10);
  expect_fill_is_the_step<c::boolean>(DType::boolean, 11);
  HostTensor fp4(DType::float4_e2m1, {4099});  // odd: the last byte holds one code
  fill_random(fp4, 12, 3);
  const FillRule rule = default_rule(DType::float4_e2m1, 12);
  for (std::size_t j = 0; j < fp4.nbytes(); ++j)
    ASSERT_EQ(static_cast<std::uint8_t>(fp4.bytes()[j]),
              detail::generate_fp4_byte(rule, detail::ziggurat_tables(), j, 4099))
        << "byte " << j;
}

TEST(PortableSteps, EncodersAreTheFloatFormats) {
  // float_formats.cpp is implemented by the steps; this pins the rounding the device
  // shares: ties to even, saturation, NaN.
  EXPECT_EQ(detail::encode_bf16(1.00390625f), 0x3F80u) << "a tie goes to the even code";
  EXPECT_EQ(detail::encode_bf16(1.01171875f), 0x3F82u);
  EXPECT_EQ(detail::encode_e4m3(1000.0f, true), 0x7Eu);
  EXPECT_EQ(detail::encode_e4m3(1000.0f, false), 0x7Fu);
  EXPECT_EQ(detail::encode_e4m3(-std::numeric_limits<float>::infinity(), true), 0xFEu);
  EXPECT_EQ(detail::encode_e5m2(1e6f, true), 0x7Bu);
  EXPECT_EQ(detail::encode_e5m2(1e6f, false), 0x7Cu);
  EXPECT_EQ(detail::encode_e2m1(100.0f), 0x7u);
  for (float x = -500.0f; x < 500.0f; x += 0.173f) {
    ASSERT_EQ(detail::encode_f16(x), float_to_f16(x));
    ASSERT_EQ(e4m3fn_to_float(detail::encode_e4m3(x, true)), e4m3fn_to_float(float_to_e4m3fn_saturating(x)));
  }
}

}  // namespace
}  // namespace kh
