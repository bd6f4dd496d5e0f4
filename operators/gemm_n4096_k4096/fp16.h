// IEEE float16 <-> float for the CPU reference and baseline: bit moves, round to nearest
// even, subnormals exact, overflow to infinity (as a float32 -> float16 cast does).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

inline float kh_f16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // infinity or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // rebias 15 -> 127
  } else {
    // Zero or subnormal: mantissa * 2^-24 is exact in float.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    std::memcpy(&bits, &magnitude, sizeof bits);
    bits |= sign;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t kh_float_to_f16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  if (std::isnan(f)) return static_cast<uint16_t>(sign | 0x7e00u);
  const float magnitude = std::fabs(f);
  if (magnitude >= 65520.0f) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (magnitude < 0x1p-14f) {
    // Subnormal range: the value in units of 2^-24, rounded to nearest even by rintf
    // (the default rounding mode); 1024 units carry into the smallest normal, as they should.
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(magnitude * 0x1p24f)));
  }
  // Normal: drop 13 mantissa bits with round to nearest even; a carry out of the
  // mantissa correctly bumps the exponent.
  uint32_t m = bits & 0x7fffffffu;
  m += 0xfffu + ((m >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((m - (112u << 23)) >> 13));
}
