// CUDA reference for softmax_h4096: one block per row and three passes over it (row max,
// sum of exp(x - max), normalise), each reduction a plain shared-memory tree. float32
// throughout with the accurate expf.
#include <kharness/kernel.h>

#include <cmath>

namespace {

constexpr int kThreads = 256;

// Combines every thread's `value` with `op`; the result is returned to all threads.
template <class Op>
__device__ float block_reduce(float value, Op op) {
  __shared__ float partial[kThreads];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] = op(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  const float result = partial[0];
  __syncthreads();  // everyone has read partial[0] before a later call overwrites it
  return result;
}

__global__ void softmax_reference_kernel(const float* x, float* y, int64_t cols) {
  const float* row = x + static_cast<int64_t>(blockIdx.x) * cols;
  float* out = y + static_cast<int64_t>(blockIdx.x) * cols;
  float max = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) max = fmaxf(max, row[c]);
  max = block_reduce(max, [](float a, float b) { return fmaxf(a, b); });
  float sum = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) sum += expf(row[c] - max);
  sum = block_reduce(sum, [](float a, float b) { return a + b; });
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) out[c] = expf(row[c] - max) / sum;
}

}  // namespace

void softmax_h4096_reference(const DLTensor* x, DLTensor* y, kh_stream_t stream) {
  const int64_t rows = x->shape[0];
  const int64_t cols = x->shape[1];
  if (rows == 0) return;
  // One block per row: grid.x allows 2^31 - 1 blocks, far above the largest batch.
  softmax_reference_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
      static_cast<const float*>(x->data), static_cast<float*>(y->data), cols);
}
