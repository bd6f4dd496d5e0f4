// The float32 -> narrow float encoders of tensor/float_formats.h, as portable steps:
// float_formats.cpp (the host) and the device input generators call these same
// functions, so a value generated on either side is encoded to the same code. Integer
// work on the float's bits only; float_formats.h documents the rounding and the
// out-of-range policy of each format.
#pragma once

#include <cstdint>

#include "tensor/portable/portable.h"

namespace kh::detail {

// A narrow binary float with IEEE-style subnormals and fewer exponent bits than float32.
struct MiniFormat {
  int exp_bits;
  int man_bits;
  int bias;
  std::uint32_t max_code;  // largest finite magnitude code (sign bit clear)
};

// Functions rather than constants: namespace-scope objects are host-only for nvcc.
KH_PORTABLE constexpr MiniFormat f16_format() { return {5, 10, 15, 0x7BFF}; }
KH_PORTABLE constexpr MiniFormat e4m3_format() { return {4, 3, 7, 0x7E}; }
KH_PORTABLE constexpr MiniFormat e5m2_format() { return {5, 2, 15, 0x7B}; }
KH_PORTABLE constexpr MiniFormat e2m1_format() { return {2, 1, 1, 0x7}; }

// Rounds a finite, non-negative float32 (given as bits) to the format, nearest-even, and
// returns the magnitude code, which may exceed max_code: the caller applies the
// overflow policy. Working on the integer significand keeps it exact.
KH_PORTABLE std::uint32_t round_magnitude(const MiniFormat& f, std::uint32_t bits) {
  const int biased = static_cast<int>(bits >> 23);
  if (biased == 0) return 0;  // float32 subnormals are far below half of any tiny subnormal here
  const int e = biased - 127;
  const std::uint64_t m = (bits & 0x7FFFFFu) | 0x800000u;  // value = m * 2^(e-23)
  const int min_exp = 1 - f.bias;
  const int unit_exp = max_of(e, min_exp) - f.man_bits;  // exponent of one code step
  const int shift = unit_exp - (e - 23);
  if (shift > 25 || shift <= 0) return 0;  // below a quarter of the smallest subnormal
  const std::uint64_t kept = m >> shift;
  const std::uint64_t rest = m & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  const bool round_up = rest > half || (rest == half && (kept & 1) != 0);
  const std::uint64_t r = kept + (round_up ? 1 : 0);
  // For normals r is in [2^M, 2^(M+1)]: adding the exponent offset lets a carry out of
  // the fraction bump the exponent, and for subnormals r is the code itself.
  const std::uint64_t exp_offset = static_cast<std::uint64_t>(max_of(e - min_exp, 0)) << f.man_bits;
  return static_cast<std::uint32_t>(min_of<std::uint64_t>(exp_offset + r, 0xFFFFFFFFu));
}

KH_PORTABLE std::uint16_t encode_f16(float x) {
#if defined(__CUDA_ARCH__)
  // The hardware conversion rounds to nearest even, keeps subnormals and overflows to
  // infinity, as the integer path below does, in one instruction instead of thirty; only
  // its NaN differs (0x7FFF), so a NaN takes the integer path.
  if (x == x) {
    unsigned short h = 0;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
    return h;
  }
#endif
  const std::uint32_t bits = bits_of(x);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u);
  if (abs == 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7C00u);
  const std::uint32_t mag = round_magnitude(f16_format(), abs);
  return static_cast<std::uint16_t>(sign | min_of<std::uint32_t>(mag, 0x7C00u));
}

KH_PORTABLE std::uint16_t encode_bf16(float x) {
  const std::uint32_t bits = bits_of(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<std::uint16_t>(((bits >> 16) & 0x8000u) | 0x7FC0u);
  // Same exponent range as float32, so rounding the low half of the bits is the whole job;
  // a carry into the exponent (or to infinity) is exactly what round-to-nearest requires.
  const std::uint32_t bias = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + bias) >> 16);
}

KH_PORTABLE float decode_bf16(std::uint16_t code) { return float_of(static_cast<std::uint32_t>(code) << 16); }

KH_PORTABLE std::uint8_t encode_e4m3(float x, bool saturate) {
  const std::uint32_t bits = bits_of(x);
  const auto sign = static_cast<std::uint8_t>((bits >> 24) & 0x80u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<std::uint8_t>(sign | 0x7Fu);
  if (abs == 0x7F800000u)  // no infinity: NaN, or the largest value when saturating
    return static_cast<std::uint8_t>(sign | (saturate ? e4m3_format().max_code : 0x7Fu));
  const std::uint32_t mag = round_magnitude(e4m3_format(), abs);
  if (mag > e4m3_format().max_code)
    return static_cast<std::uint8_t>(sign | (saturate ? e4m3_format().max_code : 0x7Fu));
  return static_cast<std::uint8_t>(sign | mag);
}

KH_PORTABLE std::uint8_t encode_e5m2(float x, bool saturate) {
  const std::uint32_t bits = bits_of(x);
  const auto sign = static_cast<std::uint8_t>((bits >> 24) & 0x80u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<std::uint8_t>(sign | 0x7Eu);
  const std::uint32_t top = saturate ? e5m2_format().max_code : 0x7Cu;  // max, or infinity
  if (abs == 0x7F800000u) return static_cast<std::uint8_t>(sign | top);
  return static_cast<std::uint8_t>(sign | min_of(round_magnitude(e5m2_format(), abs), top));
}

// FP4 codes in the low 4 bits; no NaN or infinity: everything out of range saturates.
KH_PORTABLE std::uint8_t encode_e2m1(float x) {
  const std::uint32_t bits = bits_of(x);
  const auto sign = static_cast<std::uint8_t>((bits >> 28) & 0x8u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return static_cast<std::uint8_t>(sign | e2m1_format().max_code);
  return static_cast<std::uint8_t>(sign |
                                   min_of(round_magnitude(e2m1_format(), abs), e2m1_format().max_code));
}

}  // namespace kh::detail
