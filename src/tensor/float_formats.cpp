#include "tensor/float_formats.h"

#include <bit>
#include <cmath>
#include <limits>

namespace kh {

namespace {

// A narrow binary float: sign, `exp_bits` exponent bits with `bias`, `man_bits` fraction
// bits, IEEE-style subnormals. Only formats with fewer exponent bits than float32 go
// through this path (bfloat16 has its own, cheaper one).
struct MiniFormat {
  int exp_bits;
  int man_bits;
  int bias;
  std::uint32_t max_code;  // largest finite magnitude code (sign bit clear)
};

constexpr MiniFormat kF16{5, 10, 15, 0x7BFF};
constexpr MiniFormat kE4M3{4, 3, 7, 0x7E};
constexpr MiniFormat kE5M2{5, 2, 15, 0x7B};
constexpr MiniFormat kE2M1{2, 1, 1, 0x7};

float decode(const MiniFormat& f, std::uint32_t magnitude) noexcept {
  const std::uint32_t exp = magnitude >> f.man_bits;
  const std::uint32_t man = magnitude & ((1u << f.man_bits) - 1);
  const int min_exp = 1 - f.bias;
  if (exp == 0) return std::ldexp(static_cast<float>(man), min_exp - f.man_bits);
  const auto significand = static_cast<float>((1u << f.man_bits) | man);
  return std::ldexp(significand, static_cast<int>(exp) - f.bias - f.man_bits);
}

// Rounds a finite, non-negative float32 (given as bits) to the format and returns the
// magnitude code, which may exceed max_code: the caller applies the overflow policy.
// Working on the integer significand keeps this exact, ties-to-even included.
std::uint32_t round_magnitude(const MiniFormat& f, std::uint32_t bits) noexcept {
  const int biased = static_cast<int>(bits >> 23);
  if (biased == 0) return 0;  // float32 subnormals are far below half of any tiny subnormal here
  const int e = biased - 127;
  const std::uint64_t m = (bits & 0x7FFFFFu) | 0x800000u;  // value = m * 2^(e-23)
  const int min_exp = 1 - f.bias;
  const int unit_exp = std::max(e, min_exp) - f.man_bits;  // exponent of one code step
  const int shift = unit_exp - (e - 23);
  if (shift > 25) return 0;  // below a quarter of the smallest subnormal
  if (shift <= 0) {
    // Cannot happen for the formats above (they all have <= 10 fraction bits), kept for safety.
    return 0;
  }
  const std::uint64_t kept = m >> shift;
  const std::uint64_t rest = m & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  const bool round_up = rest > half || (rest == half && (kept & 1) != 0);
  const std::uint64_t r = kept + (round_up ? 1 : 0);
  // For normals r is in [2^M, 2^(M+1)]: adding the exponent offset lets a carry out of
  // the fraction bump the exponent, and for subnormals r is the code itself.
  const std::uint64_t exp_offset = static_cast<std::uint64_t>(std::max(e - min_exp, 0)) << f.man_bits;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(exp_offset + r, 0xFFFFFFFFu));
}

std::uint32_t float_bits(float x) noexcept { return std::bit_cast<std::uint32_t>(x); }

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

std::uint16_t float_to_f16(float x) noexcept {
  const std::uint32_t bits = float_bits(x);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return sign | 0x7E00u;
  if (abs == 0x7F800000u) return sign | 0x7C00u;
  const std::uint32_t mag = round_magnitude(kF16, abs);
  return static_cast<std::uint16_t>(sign | std::min<std::uint32_t>(mag, 0x7C00u));
}

float bf16_to_float(std::uint16_t code) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(code) << 16);
}

std::uint16_t float_to_bf16(float x) noexcept {
  const std::uint32_t bits = float_bits(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<std::uint16_t>(((bits >> 16) & 0x8000u) | 0x7FC0u);
  // Same exponent range as float32, so rounding the low half of the bits is the whole job;
  // a carry into the exponent (or to infinity) is exactly what round-to-nearest requires.
  const std::uint32_t bias = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + bias) >> 16);
}

float e4m3fn_to_float(std::uint8_t code) noexcept {
  const bool neg = (code & 0x80u) != 0;
  const std::uint32_t mag = code & 0x7Fu;
  const float v = mag == 0x7Fu ? std::numeric_limits<float>::quiet_NaN() : decode(kE4M3, mag);
  return neg ? -v : v;
}

std::uint8_t float_to_e4m3fn(float x) noexcept {
  const std::uint32_t bits = float_bits(x);
  const auto sign = static_cast<std::uint8_t>((bits >> 24) & 0x80u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return sign | 0x7Fu;  // NaN and inf both become NaN: no infinity
  const std::uint32_t mag = round_magnitude(kE4M3, abs);
  return static_cast<std::uint8_t>(sign | (mag > kE4M3.max_code ? 0x7Fu : mag));
}

std::uint8_t float_to_e4m3fn_saturating(float x) noexcept {
  const std::uint32_t bits = float_bits(x);
  const auto sign = static_cast<std::uint8_t>((bits >> 24) & 0x80u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return sign | 0x7Fu;
  if (abs == 0x7F800000u) return static_cast<std::uint8_t>(sign | kE4M3.max_code);
  const std::uint32_t mag = round_magnitude(kE4M3, abs);
  return static_cast<std::uint8_t>(sign | std::min(mag, kE4M3.max_code));
}

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

std::uint8_t float_to_e5m2(float x) noexcept {
  const std::uint32_t bits = float_bits(x);
  const auto sign = static_cast<std::uint8_t>((bits >> 24) & 0x80u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return sign | 0x7Eu;
  if (abs == 0x7F800000u) return sign | 0x7Cu;
  const std::uint32_t mag = round_magnitude(kE5M2, abs);
  return static_cast<std::uint8_t>(sign | std::min<std::uint32_t>(mag, 0x7Cu));
}

std::uint8_t float_to_e5m2_saturating(float x) noexcept {
  const std::uint32_t bits = float_bits(x);
  const auto sign = static_cast<std::uint8_t>((bits >> 24) & 0x80u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return sign | 0x7Eu;
  if (abs == 0x7F800000u) return static_cast<std::uint8_t>(sign | kE5M2.max_code);
  const std::uint32_t mag = round_magnitude(kE5M2, abs);
  return static_cast<std::uint8_t>(sign | std::min(mag, kE5M2.max_code));
}

float e2m1_to_float(std::uint8_t code) noexcept {
  const float v = decode(kE2M1, code & 0x7u);
  return (code & 0x8u) != 0 ? -v : v;
}

std::uint8_t float_to_e2m1(float x) noexcept {
  const std::uint32_t bits = float_bits(x);
  const auto sign = static_cast<std::uint8_t>((bits >> 28) & 0x8u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return static_cast<std::uint8_t>(sign | kE2M1.max_code);
  const std::uint32_t mag = round_magnitude(kE2M1, abs);
  return static_cast<std::uint8_t>(sign | std::min(mag, kE2M1.max_code));
}

}  // namespace kh
