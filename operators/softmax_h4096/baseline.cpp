// CPU baseline for softmax_h4096: online softmax, two passes per row instead of three.
//
// The first pass keeps a running max m and a running sum s of exp(x - m); when a larger
// value arrives, the sum is rescaled by exp(old m - new m) before it is added to. LANES
// such (m, s) pairs run interleaved (independent chains for the out-of-order core) and
// are merged at the end with the same rule. The second pass writes exp(x - m) / s.
//
// kh:param LANES in {1,4,8}  interleaved running (max, sum) pairs per row
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>

#ifndef LANES
#define LANES 4
#endif

namespace {

struct MaxSum {
  float max = -INFINITY;
  float sum = 0.f;
};

// Adds one value to a running (max, sum).
void accumulate(MaxSum& part, float v) {
  if (v > part.max) {
    part.sum = part.sum * std::exp(part.max - v) + 1.f;  // exp(-inf) = 0 for the first value
    part.max = v;
  } else {
    part.sum += std::exp(v - part.max);
  }
}

MaxSum merge(MaxSum a, MaxSum b) {
  if (b.sum == 0.f) return a;  // a lane that saw no value
  if (a.sum == 0.f) return b;
  const float max = std::fmax(a.max, b.max);
  return {max, a.sum * std::exp(a.max - max) + b.sum * std::exp(b.max - max)};
}

MaxSum row_max_sum(const float* row, int64_t cols) {
  MaxSum lanes[LANES];
  int64_t c = 0;
  for (; c + LANES <= cols; c += LANES) {
    for (int l = 0; l < LANES; ++l) accumulate(lanes[l], row[c + l]);
  }
  for (; c < cols; ++c) accumulate(lanes[0], row[c]);
  MaxSum total = lanes[0];
  for (int l = 1; l < LANES; ++l) total = merge(total, lanes[l]);
  return total;
}

}  // namespace

void softmax_h4096_baseline(const DLTensor* x, DLTensor* y, kh_stream_t /*stream*/) {
  const int64_t rows = x->shape[0];
  const int64_t cols = x->shape[1];
  const auto* in = static_cast<const float*>(x->data);
  auto* out = static_cast<float*>(y->data);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * cols;
    const MaxSum total = row_max_sum(row, cols);
    const float inv_sum = 1.f / total.sum;
    for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = std::exp(row[c] - total.max) * inv_sum;
  }
}
