#include "tensor/float_formats.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

namespace kh {
namespace {

// One narrow format seen through function pointers, so every property below is checked
// for every format with the same code.
struct Format {
  const char* name;
  int bits;
  std::function<float(std::uint32_t)> decode;
  std::function<std::uint32_t(float)> encode;
  std::uint32_t max_code;  // largest finite magnitude code
};

Format f16() {
  return {"f16", 16, [](std::uint32_t c) { return f16_to_float(static_cast<std::uint16_t>(c)); },
          float_to_f16, 0x7BFF};
}
Format bf16() {
  return {"bf16", 16, [](std::uint32_t c) { return bf16_to_float(static_cast<std::uint16_t>(c)); },
          float_to_bf16, 0x7F7F};
}
Format e4m3() {
  return {"e4m3fn", 8, [](std::uint32_t c) { return e4m3fn_to_float(static_cast<std::uint8_t>(c)); },
          float_to_e4m3fn, 0x7E};
}
Format e5m2() {
  return {"e5m2", 8, [](std::uint32_t c) { return e5m2_to_float(static_cast<std::uint8_t>(c)); },
          float_to_e5m2, 0x7B};
}
Format e2m1() {
  return {"e2m1", 4, [](std::uint32_t c) { return e2m1_to_float(static_cast<std::uint8_t>(c)); },
          float_to_e2m1, 0x7};
}

// Keeps gtest from dumping the std::function bytes in test names and failures.
void PrintTo(const Format& f, std::ostream* os) { *os << f.name; }

class EveryFormat : public ::testing::TestWithParam<Format> {};

TEST_P(EveryFormat, EveryCodeRoundTrips) {
  const Format& f = GetParam();
  for (std::uint32_t code = 0; code < (1u << f.bits); ++code) {
    const float v = f.decode(code);
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(f.decode(f.encode(v)))) << f.name << " code " << code;
      continue;
    }
    EXPECT_EQ(f.encode(v), code) << f.name << " code " << code << " value " << v;
  }
}

TEST_P(EveryFormat, ValuesBetweenCodesRoundToNearestTiesToEven) {
  const Format& f = GetParam();
  const std::uint32_t sign = 1u << (f.bits - 1);
  for (std::uint32_t c = 0; c < f.max_code; ++c) {
    const float a = f.decode(c);
    const float b = f.decode(c + 1);
    ASSERT_LT(a, b) << f.name << " code " << c;
    const auto mid = static_cast<float>((static_cast<double>(a) + b) / 2);  // exact: one more bit
    ASSERT_EQ(static_cast<double>(mid), (static_cast<double>(a) + b) / 2);
    const std::uint32_t even = (c % 2 == 0) ? c : c + 1;
    EXPECT_EQ(f.encode(mid), even) << f.name << " midpoint after code " << c;
    EXPECT_EQ(f.encode(-mid), even | sign) << f.name << " negative midpoint after code " << c;
    EXPECT_EQ(f.encode(std::nextafter(mid, 0.0f)), c) << f.name << " just below midpoint after " << c;
    EXPECT_EQ(f.encode(std::nextafter(mid, std::numeric_limits<float>::infinity())), c + 1)
        << f.name << " just above midpoint after " << c;
  }
}

TEST_P(EveryFormat, NegativeZeroKeepsItsSign) {
  const Format& f = GetParam();
  const std::uint32_t sign = 1u << (f.bits - 1);
  EXPECT_EQ(f.encode(-0.0f), sign);
  EXPECT_TRUE(std::signbit(f.decode(sign)));
  EXPECT_EQ(f.decode(sign), 0.0f);
}

TEST_P(EveryFormat, BelowHalfTheSmallestSubnormalIsZero) {
  const Format& f = GetParam();
  const float tiny = f.decode(1);
  EXPECT_EQ(f.encode(tiny / 2), 0u) << "tie goes to the even code 0";
  EXPECT_EQ(f.encode(std::nextafter(tiny / 2, 1.0f)), 1u);
  EXPECT_EQ(f.encode(tiny / 3), 0u);
  EXPECT_EQ(f.encode(std::numeric_limits<float>::denorm_min()), 0u);
}

INSTANTIATE_TEST_SUITE_P(Formats, EveryFormat, ::testing::Values(f16(), bf16(), e4m3(), e5m2(), e2m1()),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(Float16, KnownValues) {
  EXPECT_EQ(float_to_f16(1.0f), 0x3C00);
  EXPECT_EQ(float_to_f16(1.0f / 3), 0x3555);
  EXPECT_EQ(float_to_f16(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_f16(65519.0f), 0x7BFF);
  EXPECT_EQ(float_to_f16(65520.0f), 0x7C00) << "midpoint past max rounds to even: infinity";
  EXPECT_EQ(float_to_f16(1e6f), 0x7C00);
  EXPECT_EQ(float_to_f16(-kInf), 0xFC00);
  EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(f16_to_float(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(f16_to_float(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(float_to_f16(kNaN) & 0x7C00, 0x7C00);
  EXPECT_NE(float_to_f16(kNaN) & 0x03FF, 0);
  EXPECT_TRUE(std::isinf(f16_to_float(0x7C00)));
}

// Every one of the 65536 codes, against the format's definition written out with ldexp:
// subnormals m * 2^-24, normals (1024 + m) * 2^(e-25), signed zeros, both infinities,
// and NaN for every payload.
TEST(Float16, EveryCodeDecodesToItsExactValue) {
  for (std::uint32_t code = 0; code <= 0xFFFFu; ++code) {
    const std::uint32_t exponent = (code >> 10) & 0x1Fu;
    const std::uint32_t mantissa = code & 0x3FFu;
    const bool negative = (code & 0x8000u) != 0;
    const float got = f16_to_float(static_cast<std::uint16_t>(code));
    if (exponent == 0x1Fu && mantissa != 0) {
      EXPECT_TRUE(std::isnan(got)) << std::hex << code;
      continue;
    }
    float want = exponent == 0x1Fu ? kInf
                 : exponent == 0
                     ? std::ldexp(static_cast<float>(mantissa), -24)
                     : std::ldexp(static_cast<float>(1024u + mantissa), static_cast<int>(exponent) - 25);
    if (negative) want = -want;
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want))
        << "code 0x" << std::hex << code << ": " << got << " instead of " << want;
  }
}

TEST(BFloat16, KnownValues) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7F80) << "rounds past the max to infinity";
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x00008000u)), 0x0000) << "subnormal tie to even";
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x00018000u)), 0x0002) << "subnormal tie to even (up)";
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3F808000u)), 0x3F80);
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3F818000u)), 0x3F82);
  EXPECT_EQ(float_to_bf16(kNaN), 0x7FC0);
  EXPECT_EQ(float_to_bf16(-kNaN), 0xFFC0);
  EXPECT_EQ(float_to_bf16(-kInf), 0xFF80);
}

TEST(Float8E4M3FN, KnownValues) {
  EXPECT_EQ(float_to_e4m3fn(448.0f), 0x7E);
  EXPECT_EQ(float_to_e4m3fn(464.0f), 0x7E) << "midpoint 448/480 ties to the even 448";
  EXPECT_EQ(float_to_e4m3fn(std::nextafter(464.0f, kInf)), 0x7F) << "past the midpoint: NaN, as torch";
  EXPECT_EQ(float_to_e4m3fn(-500.0f), 0xFF);
  EXPECT_EQ(float_to_e4m3fn(kInf), 0x7F);
  EXPECT_EQ(float_to_e4m3fn(kNaN), 0x7F);
  EXPECT_EQ(float_to_e4m3fn(std::ldexp(1.0f, -9)), 0x01) << "smallest subnormal";
  EXPECT_EQ(e4m3fn_to_float(0x07), std::ldexp(7.0f, -9)) << "largest subnormal";
  EXPECT_EQ(e4m3fn_to_float(0x08), std::ldexp(1.0f, -6)) << "smallest normal";
  EXPECT_TRUE(std::isnan(e4m3fn_to_float(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3fn_to_float(0xFF)));
  EXPECT_EQ(e4m3fn_to_float(0x7E), 448.0f) << "S.1111.110 is a number, not NaN";
}

TEST(Float8E4M3FN, SaturatingClampsToMax) {
  EXPECT_EQ(float_to_e4m3fn_saturating(1000.0f), 0x7E);
  EXPECT_EQ(float_to_e4m3fn_saturating(-kInf), 0xFE);
  EXPECT_EQ(float_to_e4m3fn_saturating(kNaN), 0x7F);
  EXPECT_EQ(float_to_e4m3fn_saturating(1.0f), float_to_e4m3fn(1.0f));
}

TEST(Float8E5M2, KnownValues) {
  EXPECT_EQ(float_to_e5m2(57344.0f), 0x7B);
  EXPECT_EQ(float_to_e5m2(std::nextafter(61440.0f, 0.0f)), 0x7B);
  EXPECT_EQ(float_to_e5m2(61440.0f), 0x7C) << "midpoint past max ties to even: infinity";
  EXPECT_EQ(float_to_e5m2(-kInf), 0xFC);
  EXPECT_TRUE(std::isnan(e5m2_to_float(float_to_e5m2(kNaN))));
  EXPECT_EQ(float_to_e5m2(std::ldexp(1.0f, -16)), 0x01);
  EXPECT_EQ(e5m2_to_float(0x03), std::ldexp(3.0f, -16));
  EXPECT_EQ(e5m2_to_float(0x04), std::ldexp(1.0f, -14));
  EXPECT_EQ(float_to_e5m2_saturating(1e6f), 0x7B);
  EXPECT_EQ(float_to_e5m2_saturating(-kInf), 0xFB);
}

TEST(Float4E2M1, KnownValues) {
  const float values[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (std::uint8_t c = 0; c < 8; ++c) {
    EXPECT_EQ(e2m1_to_float(c), values[c]);
    EXPECT_EQ(e2m1_to_float(static_cast<std::uint8_t>(c | 8)), -values[c]);
  }
  EXPECT_EQ(float_to_e2m1(5.0f), 0x6) << "tie between 4 and 6 goes to the even code (4)";
  EXPECT_EQ(float_to_e2m1(2.5f), 0x4);
  EXPECT_EQ(float_to_e2m1(7.0f), 0x7);
  EXPECT_EQ(float_to_e2m1(100.0f), 0x7) << "saturates";
  EXPECT_EQ(float_to_e2m1(-100.0f), 0xF);
  EXPECT_EQ(float_to_e2m1(kInf), 0x7);
  EXPECT_EQ(float_to_e2m1(kNaN), 0x7) << "NaN saturates by its sign bit";
  EXPECT_EQ(float_to_e2m1(-kNaN), 0xF);
  EXPECT_EQ(float_to_e2m1(0.25f), 0x0);
  EXPECT_EQ(e2m1_to_float(0xF3), 1.5f) << "high bits ignored";
}

}  // namespace
}  // namespace kh
