// Does the work on the host: copy the inputs down, compute, copy the result back, all
// with synchronous copies. Legal but slow; its latency must include the copies.
#include <cmath>
#include <vector>

#include "rmsnorm_common.cuh"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {
  const int64_t rows = x->shape[0];
  const int64_t cols = x->shape[1];
  std::vector<__nv_bfloat16> in(static_cast<std::size_t>(rows * cols));
  std::vector<__nv_bfloat16> weight(static_cast<std::size_t>(cols));
  std::vector<__nv_bfloat16> out(in.size());
  cudaMemcpy(in.data(), x->data, in.size() * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(weight.data(), w->data, weight.size() * 2, cudaMemcpyDeviceToHost);
  for (int64_t r = 0; r < rows; ++r) {
    float sum = 0.f;
    for (int64_t c = 0; c < cols; ++c)
      sum += __bfloat162float(in[r * cols + c]) * __bfloat162float(in[r * cols + c]);
    const float inv_rms = 1.f / std::sqrt(sum / static_cast<float>(cols) + kEps);
    for (int64_t c = 0; c < cols; ++c) {
      out[r * cols + c] =
          __float2bfloat16(__bfloat162float(in[r * cols + c]) * inv_rms * __bfloat162float(weight[c]));
    }
  }
  cudaMemcpy(y->data, out.data(), out.size() * 2, cudaMemcpyHostToDevice);
}
