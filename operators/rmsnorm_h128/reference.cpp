// CPU reference for rmsnorm_h128: plain loops, float accumulation, round to bf16.
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

float bf16_to_float(uint16_t v) {
  uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint16_t float_to_bf16(float f) {  // round to nearest even; NaN stays NaN
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (std::isnan(f)) return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

}  // namespace

void rmsnorm_reference(const DLTensor* hidden_states, const DLTensor* weight, DLTensor* output,
                       kh_stream_t /*stream*/) {
  const int64_t rows = hidden_states->shape[0];
  const int64_t cols = hidden_states->shape[1];
  const auto* x = static_cast<const uint16_t*>(hidden_states->data);
  const auto* w = static_cast<const uint16_t*>(weight->data);
  auto* y = static_cast<uint16_t*>(output->data);
  for (int64_t r = 0; r < rows; ++r) {
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      float v = bf16_to_float(x[r * cols + c]);
      sum += v * v;
    }
    float inv_rms = 1.0f / std::sqrt(sum / static_cast<float>(cols) + 1e-5f);
    for (int64_t c = 0; c < cols; ++c) {
      y[r * cols + c] = float_to_bf16(bf16_to_float(x[r * cols + c]) * inv_rms * bf16_to_float(w[c]));
    }
  }
}
