// Shared by the test solutions for rmsnorm_h128: bf16 conversions and one honest row.
#pragma once
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>
#include <cstring>

inline float bf16_to_float(uint16_t v) {
  uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (std::isnan(f)) return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

// y = x * rsqrt(mean(x^2) + 1e-5) * w over rows [begin, end), scaled by `scale`.
inline void rmsnorm_rows(const DLTensor* x_t, const DLTensor* w_t, DLTensor* y_t, int64_t begin, int64_t end,
                         float scale = 1.0f) {
  const int64_t cols = x_t->shape[1];
  const auto* x = static_cast<const uint16_t*>(x_t->data);
  const auto* w = static_cast<const uint16_t*>(w_t->data);
  auto* y = static_cast<uint16_t*>(y_t->data);
  for (int64_t r = begin; r < end; ++r) {
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      float v = bf16_to_float(x[r * cols + c]);
      sum += v * v;
    }
    const float inv = scale / std::sqrt(sum / static_cast<float>(cols) + 1e-5f);
    for (int64_t c = 0; c < cols; ++c)
      y[r * cols + c] = float_to_bf16(bf16_to_float(x[r * cols + c]) * inv * bf16_to_float(w[c]));
  }
}
