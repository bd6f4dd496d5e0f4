// CPU reference for rmsnorm_h128: plain loops, float accumulation, round to bf16.
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>

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
      float v = kh_bf16_to_float(x[r * cols + c]);
      sum += v * v;
    }
    float inv_rms = 1.0f / std::sqrt(sum / static_cast<float>(cols) + 1e-5f);
    for (int64_t c = 0; c < cols; ++c) {
      y[r * cols + c] =
          kh_float_to_bf16(kh_bf16_to_float(x[r * cols + c]) * inv_rms * kh_bf16_to_float(w[c]));
    }
  }
}
