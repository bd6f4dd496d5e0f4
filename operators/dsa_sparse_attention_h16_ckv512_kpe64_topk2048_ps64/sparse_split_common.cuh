// What every split-K kernel family of this operator shares (the CUDA-core baseline's,
// sparse_cuda_core_split.cuh; the tensor-core candidates', sparse_tc_ksplit.cuh and
// sparse_tc_split.cuh): the shapes, the call's arguments as the split kernel reads them, their
// binding from the call's tensors, the partials' scratch on a pool kept mapped, and the block
// reduction of the combines.
#pragma once

#include <cuda_bf16.h>
#include <kharness/kernel.h>

#include <cstdint>

namespace dsa_sparse {

constexpr int kHeads = 16;
constexpr int kDimV = 512;             // ckv width: key part and value
constexpr int kDimPe = 64;             // kpe width
constexpr int kDimK = kDimV + kDimPe;  // 576
constexpr float kLog2e = 1.4426950408889634f;

struct Args {
  const __nv_bfloat16* q_nope;
  const __nv_bfloat16* q_pe;
  const __nv_bfloat16* ckv;
  const __nv_bfloat16* kpe;
  const int32_t* indices;
  float* part_o;  // [tokens, splits, heads, kDimV], unnormalised
  float* part_m;  // [tokens, splits, heads], running max (base 2)
  float* part_l;  // [tokens, splits, heads], running sum
  int64_t topk, rows;
  int splits, chunk;  // chunk = list entries per split
  float scale2;       // sm_scale * log2(e)
};

// The call's inputs as the split kernel reads them (partials and split plan not yet set); false
// for head counts or widths these kernels do not serve.
inline bool bind_args(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                      const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale, Args& a) {
  if (q_nope->shape[1] != kHeads || q_nope->shape[2] != kDimV || q_pe->shape[2] != kDimPe) return false;
  a.q_nope = static_cast<const __nv_bfloat16*>(q_nope->data);
  a.q_pe = static_cast<const __nv_bfloat16*>(q_pe->data);
  a.ckv = static_cast<const __nv_bfloat16*>(ckv_cache->data);
  a.kpe = static_cast<const __nv_bfloat16*>(kpe_cache->data);
  a.indices = static_cast<const int32_t*>(sparse_indices->data);
  a.topk = sparse_indices->shape[1];
  a.rows = ckv_cache->shape[0] * ckv_cache->shape[1];
  a.scale2 = sm_scale * kLog2e;
  return true;
}

// By default the stream-ordered pool returns freed memory to the OS at every synchronisation,
// so each call's cudaMallocAsync would map fresh memory and stall the stream for tens of
// microseconds. Keeping it mapped makes the scratch a cheap reuse.
inline void keep_pool_memory_mapped() {
  static const bool done = [] {
    int device = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      uint64_t keep = UINT64_MAX;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    return true;
  }();
  (void)done;
}

// Scratch for `partials` fp32 partials (O, m, l) on the call's stream; false if refused.
inline bool allocate_partials(size_t partials, cudaStream_t stream, Args& a, void*& scratch) {
  keep_pool_memory_mapped();
  if (cudaMallocAsync(&scratch, partials * (kDimV + 2) * sizeof(float), stream) != cudaSuccess) return false;
  a.part_o = static_cast<float*>(scratch);
  a.part_m = a.part_o + partials * kDimV;
  a.part_l = a.part_m + partials;
  return true;
}

// Sum (or max) of one float per thread over a block of kBlockThreads; synchronises the block.
template <int kBlockThreads, class Op>
__device__ float combine_reduce(float v, float* scratch, Op op) {
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float r = scratch[0];
  for (int w = 1; w < kBlockThreads / 32; ++w) r = op(r, scratch[w]);
  __syncthreads();
  return r;
}

}  // namespace dsa_sparse
