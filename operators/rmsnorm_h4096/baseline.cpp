// CPU baseline for rmsnorm_h4096: rows converted to float a chunk at a time (each bf16
// converted once), the sum of squares kept as LANES interleaved partial sums so the
// compiler can use SIMD, then one pass for the scaled output.
//
// kh:param ROWS_PER_CHUNK in {1,4,16}  rows converted per chunk (16 rows = 256 KiB of floats)
// kh:param LANES in {1,4,8}            partial sums of squares per row
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>
#include <vector>

#ifndef ROWS_PER_CHUNK
#define ROWS_PER_CHUNK 4
#endif
#ifndef LANES
#define LANES 8
#endif

namespace {

float sum_of_squares(const float* row, int64_t cols) {
  float partial[LANES] = {};
  int64_t c = 0;
  for (; c + LANES <= cols; c += LANES) {
    for (int l = 0; l < LANES; ++l) partial[l] += row[c + l] * row[c + l];
  }
  for (; c < cols; ++c) partial[0] += row[c] * row[c];
  float sum = 0;
  for (float p : partial) sum += p;
  return sum;
}

}  // namespace

void rmsnorm_h4096_baseline(const DLTensor* hidden_states, const DLTensor* weight, DLTensor* output,
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
      const float inv_rms = 1.0f / std::sqrt(sum_of_squares(row, cols) / static_cast<float>(cols) + 1e-5f);
      uint16_t* out = y + (r0 + r) * cols;
      for (int64_t c = 0; c < cols; ++c) out[c] = kh_float_to_bf16(row[c] * inv_rms * wf[c]);
    }
  }
}
