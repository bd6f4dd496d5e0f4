// CUDA baseline for softmax_h4096: one block per row, one pass over memory.
//
// Each thread loads its slice of the row with float4 loads and keeps it in registers. It
// reduces the slice to a pair (m, s): its max and the sum of exp(x - m). Pairs are merged
// with the online-softmax rule
//     m = max(m1, m2),   s = s1 * exp(m1 - m) + s2 * exp(m2 - m)
// first across the warp with shuffles, then across warps through shared memory. The
// outputs exp(x - m) / s are written from the registers, so x is read once and y written
// once: the least traffic softmax allows.
//
// kh:param THREADS in {128,256,512,1024}  threads per block (one row per block)
// kh:param FAST_EXP in {0,1}              1: __expf (MUFU.EX2, ~2 ulp), 0: expf
#include <kharness/kernel.h>

#include <cmath>

#ifndef THREADS
#define THREADS 256
#endif
#ifndef FAST_EXP
#define FAST_EXP 1
#endif

namespace {

constexpr int kHidden = 4096;  // fixed by the definition
constexpr int kWarps = THREADS / 32;
constexpr int kVecsPerRow = kHidden / 4;
constexpr int kVecsPerThread = kVecsPerRow / THREADS;
static_assert(kVecsPerRow % THREADS == 0, "every thread must own the same number of float4");

__device__ __forceinline__ float exp_of(float v) {
#if FAST_EXP
  return __expf(v);
#else
  return expf(v);
#endif
}

// A partial softmax: the max of some values and the sum of exp(value - max).
struct MaxSum {
  float max;
  float sum;
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
  const float max = fmaxf(a.max, b.max);
  return {max, a.sum * exp_of(a.max - max) + b.sum * exp_of(b.max - max)};
}

// The whole block's (max, sum); every thread gets it.
__device__ MaxSum block_merge(MaxSum part) {
  __shared__ MaxSum warp_parts[kWarps];
  for (int offset = 16; offset > 0; offset >>= 1) {
    const MaxSum other{__shfl_xor_sync(0xffffffffu, part.max, offset),
                       __shfl_xor_sync(0xffffffffu, part.sum, offset)};
    part = merge(part, other);
  }
  if (threadIdx.x % 32 == 0) warp_parts[threadIdx.x / 32] = part;
  __syncthreads();
  MaxSum total = warp_parts[0];
  for (int w = 1; w < kWarps; ++w) total = merge(total, warp_parts[w]);
  return total;
}

__global__ void __launch_bounds__(THREADS)
    softmax_baseline_kernel(const float4* __restrict__ x, float4* __restrict__ y) {
  const int64_t row_start = static_cast<int64_t>(blockIdx.x) * kVecsPerRow;
  float4 v[kVecsPerThread];
  float max = -INFINITY;
  for (int i = 0; i < kVecsPerThread; ++i) {
    // Consecutive threads take consecutive float4: each warp load is one contiguous run.
    v[i] = x[row_start + threadIdx.x + i * THREADS];
    max = fmaxf(max, fmaxf(fmaxf(v[i].x, v[i].y), fmaxf(v[i].z, v[i].w)));
  }
  float sum = 0.f;
  for (int i = 0; i < kVecsPerThread; ++i) {
    sum += exp_of(v[i].x - max) + exp_of(v[i].y - max) + exp_of(v[i].z - max) + exp_of(v[i].w - max);
  }
  const MaxSum row = block_merge({max, sum});
  const float inv_sum = 1.f / row.sum;
  for (int i = 0; i < kVecsPerThread; ++i) {
    const float4 e{exp_of(v[i].x - row.max) * inv_sum, exp_of(v[i].y - row.max) * inv_sum,
                   exp_of(v[i].z - row.max) * inv_sum, exp_of(v[i].w - row.max) * inv_sum};
    y[row_start + threadIdx.x + i * THREADS] = e;
  }
}

}  // namespace

void softmax_h4096_baseline(const DLTensor* x, DLTensor* y, kh_stream_t stream) {
  const int64_t rows = x->shape[0];
  if (rows == 0) return;
  softmax_baseline_kernel<<<static_cast<unsigned>(rows), THREADS, 0, stream>>>(
      static_cast<const float4*>(x->data), static_cast<float4*>(y->data));
}
