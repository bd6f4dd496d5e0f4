/* Host-side conversions between float and the narrow float formats, for C++ (CPU)
 * solutions: bf16 and float16 with round to nearest even (as a float32 cast does on a
 * GPU), and fp8 e4m3fn decoding (exact: every e4m3 value is a float32). Inline and
 * host-only, so nvcc accepts the header too; CUDA code uses cuda_bf16.h / cuda_fp8.h.
 */
#ifndef KHARNESS_HOST_FLOAT_H_
#define KHARNESS_HOST_FLOAT_H_

#ifdef __cplusplus
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

inline float kh_bf16_to_float(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t kh_float_to_bf16(float f) {
  if (std::isnan(f)) return 0x7fc0;
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

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

// e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities; S.1111.111 is NaN.
inline float kh_e4m3_to_float(uint8_t code) {
  const uint32_t sign = static_cast<uint32_t>(code & 0x80u) << 24;
  const uint32_t exponent = (code >> 3) & 0xFu;
  uint32_t mantissa = code & 0x7u;
  uint32_t bits;
  if (exponent == 0xFu && mantissa == 0x7u) {
    return std::numeric_limits<float>::quiet_NaN();
  } else if (exponent != 0) {
    bits = sign | ((exponent + 120u) << 23) | (mantissa << 20);  // rebias 7 -> 127
  } else if (mantissa == 0) {
    bits = sign;  // +-0
  } else {
    // Subnormal m * 2^-9: normalise the mantissa into float32's implicit bit.
    int shift = 0;
    while ((mantissa & 0x4u) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | ((120u - static_cast<uint32_t>(shift)) << 23) | ((mantissa & 0x3u) << 21);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// The float value of all 256 codes, built once: the hot loops then do one load per byte.
struct KhE4m3Table {
  float value[256];
  KhE4m3Table() {
    for (int c = 0; c < 256; ++c) value[c] = kh_e4m3_to_float(static_cast<uint8_t>(c));
  }
};

inline const KhE4m3Table& kh_e4m3_table() {
  static const KhE4m3Table table;
  return table;
}

#endif /* __cplusplus */

#endif /* KHARNESS_HOST_FLOAT_H_ */
