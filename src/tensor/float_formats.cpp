#include "tensor/float_formats.h"

#include <bit>
#include <cmath>
#include <limits>

#include "tensor/portable/float_encode_steps.h"

namespace kh {

namespace {

using detail::MiniFormat;
constexpr MiniFormat kF16 = detail::f16_format();
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

float f16_to_float(std::uint16_t code) noexcept {
  const bool neg = (code & 0x8000u) != 0;
  const std::uint32_t mag = code & 0x7FFFu;
  float v;
  if (mag >= 0x7C00u) {
    v = mag == 0x7C00u ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  } else {
    v = decode(kF16, mag);
  }
  return neg ? -v : v;
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
