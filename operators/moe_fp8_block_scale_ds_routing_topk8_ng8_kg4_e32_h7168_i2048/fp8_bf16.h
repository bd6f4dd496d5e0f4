// fp8 e4m3fn -> float and float <-> bf16 for the CPU reference and baseline: bit moves,
// round to nearest even. Host-only inline functions, so nvcc accepts the header too.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

// e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities; S.1111.111 is NaN.
inline float kh_e4m3_to_float(uint8_t code) {
  const int exponent = (code >> 3) & 0xF;
  const int mantissa = code & 0x7;
  float magnitude;
  if (exponent == 0xF && mantissa == 0x7) {
    magnitude = NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -9);  // subnormal: m * 2^-6 / 8
  } else {
    magnitude = std::ldexp(static_cast<float>(8 + mantissa), exponent - 10);  // (1 + m/8) * 2^(e-7)
  }
  return (code & 0x80) != 0 ? -magnitude : magnitude;
}

// All 256 codes decoded once: hot loops index this table instead of decoding bits.
struct KhE4m3Table {
  float value[256];
  KhE4m3Table() {
    for (int c = 0; c < 256; ++c) value[c] = kh_e4m3_to_float(static_cast<uint8_t>(c));
  }
};

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
