// CPU baseline for rmsnorm_h128: one pass for the sum of squares, one for the scaled
// output, the row held in a float buffer so each bf16 is converted once.
//
// kh:param ROWS_PER_CHUNK in {1,4,16}  rows converted per chunk (cache blocking)
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>
#include <vector>

#ifndef ROWS_PER_CHUNK
#define ROWS_PER_CHUNK 4
#endif

void rmsnorm_baseline(const DLTensor* hidden_states, const DLTensor* weight, DLTensor* output,
                      kh_stream_t /*stream*/) {
  const int64_t rows = hidden_states->shape[0];
  const int64_t cols = hidden_states->shape[1];
  const auto* x = static_cast<const uint16_t*>(hidden_states->data);
  const auto* w = static_cast<const uint16_t*>(weight->data);
  auto* y = static_cast<uint16_t*>(output->data);
  std::vector<float> wf(static_cast<size_t>(cols));
  for (int64_t c = 0; c < cols; ++c) wf[c] = kh_bf16_to_float(w[c]);
  std::vector<float> xf(static_cast<size_t>(cols) * ROWS_PER_CHUNK);
  for (int64_t r0 = 0; r0 < rows; r0 += ROWS_PER_CHUNK) {
    const int64_t n = rows - r0 < ROWS_PER_CHUNK ? rows - r0 : ROWS_PER_CHUNK;
    for (int64_t i = 0; i < n * cols; ++i) xf[i] = kh_bf16_to_float(x[r0 * cols + i]);
    for (int64_t r = 0; r < n; ++r) {
      const float* row = xf.data() + r * cols;
      float sum = 0;
      for (int64_t c = 0; c < cols; ++c) sum += row[c] * row[c];
      const float inv_rms = 1.0f / std::sqrt(sum / static_cast<float>(cols) + 1e-5f);
      uint16_t* out = y + (r0 + r) * cols;
      for (int64_t c = 0; c < cols; ++c) out[c] = kh_float_to_bf16(row[c] * inv_rms * wf[c]);
    }
  }
}
