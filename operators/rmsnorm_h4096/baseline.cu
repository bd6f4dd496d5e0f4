// CUDA baseline for rmsnorm_h4096: one block per row. Each thread loads its share of the
// row with vector loads (VEC bf16 at a time: 8 or 16 bytes) and keeps it in registers, so
// the row is read from memory once. The sum of squares is reduced with warp shuffles,
// then across warps through shared memory.
//
// kh:param THREADS in {128,256,512}  threads per block (one row per block)
// kh:param VEC in {4,8}              bf16 elements per load (8 or 16 bytes)
#include <cuda_bf16.h>
#include <kharness/kernel.h>

#include <type_traits>

#ifndef THREADS
#define THREADS 256
#endif
#ifndef VEC
#define VEC 8
#endif

namespace {

constexpr int kHidden = 4096;  // fixed by the definition
constexpr int kWarps = THREADS / 32;
constexpr int kPacksPerRow = kHidden / VEC;
constexpr int kPacksPerThread = kPacksPerRow / THREADS;
static_assert(kPacksPerRow % THREADS == 0, "every thread must own the same number of packs");

// VEC bf16 values moved as one aligned 8- or 16-byte access, read and written as
// __nv_bfloat162 pairs.
using Pack = std::conditional_t<VEC == 8, uint4, uint2>;
static_assert(sizeof(Pack) == VEC * sizeof(__nv_bfloat16), "a pack holds VEC bf16");

__device__ __forceinline__ float2 pair_of(const Pack& p, int j) {
  return __bfloat1622float2(reinterpret_cast<const __nv_bfloat162*>(&p)[j]);
}

// The block's total of `value`; every thread gets it.
__device__ float block_sum(float value) {
  __shared__ float warp_sums[kWarps];
  for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(0xffffffffu, value, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
  __syncthreads();
  float total = 0.f;
  for (int w = 0; w < kWarps; ++w) total += warp_sums[w];
  return total;
}

__global__ void __launch_bounds__(THREADS)
    rmsnorm_baseline_kernel(const Pack* __restrict__ x, const Pack* __restrict__ w, Pack* __restrict__ y) {
  const int64_t row_start = static_cast<int64_t>(blockIdx.x) * kPacksPerRow;
  float2 v[kPacksPerThread][VEC / 2];  // this thread's slice of the row, as floats
  float sum = 0.f;
  for (int i = 0; i < kPacksPerThread; ++i) {
    // Consecutive threads take consecutive packs: each warp load is one contiguous run.
    const Pack p = x[row_start + threadIdx.x + i * THREADS];
    for (int j = 0; j < VEC / 2; ++j) {
      v[i][j] = pair_of(p, j);
      sum += v[i][j].x * v[i][j].x + v[i][j].y * v[i][j].y;
    }
  }
  const float inv_rms = rsqrtf(block_sum(sum) / kHidden + 1e-5f);
  for (int i = 0; i < kPacksPerThread; ++i) {
    const int pack = threadIdx.x + i * THREADS;
    const Pack wp = w[pack];
    Pack out;
    for (int j = 0; j < VEC / 2; ++j) {
      const float2 wf = pair_of(wp, j);
      reinterpret_cast<__nv_bfloat162*>(&out)[j] =
          __floats2bfloat162_rn(v[i][j].x * inv_rms * wf.x, v[i][j].y * inv_rms * wf.y);
    }
    y[row_start + pack] = out;
  }
}

}  // namespace

void rmsnorm_h4096_baseline(const DLTensor* hidden_states, const DLTensor* weight, DLTensor* output,
                            kh_stream_t stream) {
  const int64_t rows = hidden_states->shape[0];
  if (rows == 0) return;
  rmsnorm_baseline_kernel<<<static_cast<unsigned>(rows), THREADS, 0, stream>>>(
      static_cast<const Pack*>(hidden_states->data), static_cast<const Pack*>(weight->data),
      static_cast<Pack*>(output->data));
}
