// fp8 e4m3fn -> float for the CPU reference and baseline: exact (every e4m3 value is a
// float32). e4m3fn has no infinities; S.1111.111 is NaN.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

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
