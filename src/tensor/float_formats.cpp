#include "tensor/float_formats.h"

#include <bit>
#include <cmath>
#include <limits>

#include "tensor/portable/float_encode_steps.h"

namespace kh {

namespace {

using detail::MiniFormat;
constexpr MiniFormat kE4M3 = detail::e4m3_format();
constexpr MiniFormat kE5M2 = detail::e5m2_format();
constexpr MiniFormat kE2M1 = detail::e2m1_format();

float decode(const MiniFormat& f, std::uint32_t magnitude) noexcept {
  const std::uint32_t exp = magnitude >> f.man_bits;
  const std::uint32_t man = magnitude & ((1u << f.man_bits) - 1);
  const int min_exp = 1 - f.bias;
  if (exp == 0) return std::ldexp(static_cast<float>(man), min_exp - f.man_bits);
  const auto significand = static_cast<float>((1u << f.man_bits) | man);
  return std::ldexp(significand, static_cast<int>(exp) - f.bias - f.man_bits);
}

}  // namespace

// In the bits, as hardware converts: the exponent is rebiased and the mantissa moved
// into place; a subnormal is renormalised by one exact float subtraction. The generic
// decode (ldexp) took about 30 ns an element, and fp16 outputs of tens of millions of
// elements are widened on every check.
float f16_to_float(std::uint16_t code) noexcept {
  constexpr std::uint32_t kExponent = 0x7C00u << 13;  // fp16's exponent field, moved to float's place
  constexpr std::uint32_t kRebias = (127u - 15u) << 23;
  if ((code & 0x7C00u) == 0x7C00u) {
    const float v = (code & 0x3FFu) == 0 ? std::numeric_limits<float>::infinity()
                                         : std::numeric_limits<float>::quiet_NaN();
    return (code & 0x8000u) != 0 ? -v : v;
  }
  std::uint32_t bits = (code & 0x7FFFu) << 13;
  const bool subnormal = (bits & kExponent) == 0;
  bits += kRebias;
  float magnitude = std::bit_cast<float>(bits);
  // A subnormal (or zero) m becomes 2^-14 * (1 + m/1024); taking 2^-14 away leaves m * 2^-24.
  if (subnormal) magnitude = std::bit_cast<float>(bits + (1u << 23)) - std::bit_cast<float>(113u << 23);
  return (code & 0x8000u) != 0 ? -magnitude : magnitude;
}

std::uint16_t float_to_f16(float x) noexcept { return detail::encode_f16(x); }

float bf16_to_float(std::uint16_t code) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(code) << 16);
}

std::uint16_t float_to_bf16(float x) noexcept { return detail::encode_bf16(x); }

float e4m3fn_to_float(std::uint8_t code) noexcept {
  const bool neg = (code & 0x80u) != 0;
  const std::uint32_t mag = code & 0x7Fu;
  const float v = mag == 0x7Fu ? std::numeric_limits<float>::quiet_NaN() : decode(kE4M3, mag);
  return neg ? -v : v;
}

std::uint8_t float_to_e4m3fn(float x) noexcept { return detail::encode_e4m3(x, false); }

std::uint8_t float_to_e4m3fn_saturating(float x) noexcept { return detail::encode_e4m3(x, true); }

float e5m2_to_float(std::uint8_t code) noexcept {
  const bool neg = (code & 0x80u) != 0;
  const std::uint32_t mag = code & 0x7Fu;
  float v;
  if (mag >= 0x7Cu) {
    v = mag == 0x7Cu ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  } else {
    v = decode(kE5M2, mag);
  }
  return neg ? -v : v;
}

std::uint8_t float_to_e5m2(float x) noexcept { return detail::encode_e5m2(x, false); }

std::uint8_t float_to_e5m2_saturating(float x) noexcept { return detail::encode_e5m2(x, true); }

float e2m1_to_float(std::uint8_t code) noexcept {
  const float v = decode(kE2M1, code & 0x7u);
  return (code & 0x8u) != 0 ? -v : v;
}

std::uint8_t float_to_e2m1(float x) noexcept { return detail::encode_e2m1(x); }

}  // namespace kh
