// CPU reference for softmax_h4096: three passes per row (max, sum of exponentials,
// normalise), all in double and rounded to float once at the end, so it is the most
// accurate of the implementations it judges.
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>

void softmax_h4096_reference(const DLTensor* x, DLTensor* y, kh_stream_t /*stream*/) {
  const int64_t rows = x->shape[0];
  const int64_t cols = x->shape[1];
  const auto* in = static_cast<const float*>(x->data);
  auto* out = static_cast<float*>(y->data);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * cols;
    double max = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) max = std::fmax(max, static_cast<double>(row[c]));
    // Subtracting the max makes every exponent <= 0: no overflow, and the largest term is 1.
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(row[c] - max);
    for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = static_cast<float>(std::exp(row[c] - max) / sum);
  }
}
