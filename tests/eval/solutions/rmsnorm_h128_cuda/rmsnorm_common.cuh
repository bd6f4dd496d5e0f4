// Shared by the CUDA test solutions: an honest rmsnorm kernel (one warp per row, fp32
// accumulation) that each cheat wraps, so a cheat differs from `correct.cu` only in
// its cheat.
#pragma once

#include <cuda_bf16.h>
#include <kharness/kernel.h>

#include <cstdint>

constexpr int kRowsPerBlock = 4;  // one warp per row
constexpr float kEps = 1e-5f;

__global__ void rmsnorm_rows_kernel(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                                    int64_t rows, int64_t cols, float scale) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const __nv_bfloat16* in = x + row * cols;
  float sum = 0.f;
  for (int64_t c = lane; c < cols; c += 32) {
    const float v = __bfloat162float(in[c]);
    sum += v * v;
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  const float inv_rms = rsqrtf(sum / static_cast<float>(cols) + kEps) * scale;
  for (int64_t c = lane; c < cols; c += 32) {
    y[row * cols + c] = __float2bfloat16(__bfloat162float(in[c]) * inv_rms * __bfloat162float(w[c]));
  }
}

// `scale` 1 is rmsnorm; anything else is a wrong answer of the right shape.
inline void launch_rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, cudaStream_t stream,
                           float scale = 1.f) {
  const int64_t rows = x->shape[0];
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  rmsnorm_rows_kernel<<<blocks, 32 * kRowsPerBlock, 0, stream>>>(
      static_cast<const __nv_bfloat16*>(x->data), static_cast<const __nv_bfloat16*>(w->data),
      static_cast<__nv_bfloat16*>(y->data), rows, x->shape[1], scale);
}

inline std::size_t output_bytes(const DLTensor* y) { return static_cast<std::size_t>(kh_numel(y)) * 2; }
