// A scripted model's correct but slow kernel for rmsnorm_h128: what the ablation test's
// server answers when no skills reach the prompt. It sweeps the whole batch 32 times (the
// result is the same each time), twice the work of the deliberately slow start the loop
// tests use, so it is never faster than the retained best.
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

inline float bf16_to_float(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

constexpr int kSweeps = 32;

}  // namespace

void rmsnorm_slow(const DLTensor* hidden_states, const DLTensor* weight, DLTensor* output, kh_stream_t) {
  const int64_t rows = hidden_states->shape[0];
  const int64_t cols = hidden_states->shape[1];
  const auto* x = static_cast<const uint16_t*>(hidden_states->data);
  const auto* w = static_cast<const uint16_t*>(weight->data);
  auto* y = static_cast<uint16_t*>(output->data);
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    for (int64_t r = 0; r < rows; ++r) {
      float sum = 0;
      for (int64_t c = 0; c < cols; ++c) {
        const float v = bf16_to_float(x[r * cols + c]);
        sum += v * v;
      }
      const float inv = 1.0f / std::sqrt(sum / static_cast<float>(cols) + 1e-5f);
      for (int64_t c = 0; c < cols; ++c) {
        y[r * cols + c] = float_to_bf16(bf16_to_float(x[r * cols + c]) * inv * bf16_to_float(w[c]));
      }
    }
  }
}
