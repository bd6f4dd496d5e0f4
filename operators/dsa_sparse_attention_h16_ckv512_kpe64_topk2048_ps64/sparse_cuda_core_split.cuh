// The baseline's CUDA-core split kernel (its notes: baseline.cu), shared with the loop's
// candidate fast_combine, which changes only the combine: each file keeps its own combine kernel
// and launches through run below.
#pragma once

#include <cuda_bf16.h>
#include <kharness/kernel.h>

#include <cstdint>

#include "sparse_split_common.cuh"

#ifndef NTHREADS
#define NTHREADS 512
#endif
#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCKS_TARGET
#define BLOCKS_TARGET 128
#endif

namespace dsa_cuda_core {

using namespace dsa_sparse;  // NOLINT(google-build-using-namespace): the shapes, Args, the call's pieces

constexpr int kWarps = NTHREADS / 32;
constexpr int kHeadsPerWarp = 4;  // scoring: a warp scores 4 heads of a row
constexpr int kRowGroups = kWarps / (kHeads / kHeadsPerWarp);
constexpr int kPairs = kDimK / 64;  // 9 bf16 pairs per lane per row
constexpr int kChunks = kDimV / 8;  // 64 chunks of 8 output dims
constexpr int kHeadGroups = NTHREADS / kChunks;
constexpr int kHeadsPerThread = kHeads / kHeadGroups;
constexpr int kPStride = kHeads + 1;  // padded so the softmax pass reads P without bank conflicts

static_assert(NTHREADS % 128 == 0 && NTHREADS <= 1024, "NTHREADS must be a multiple of 128");
static_assert(kHeads % kHeadGroups == 0, "heads must split evenly over head groups");
static_assert(TILE <= 64 && TILE % 32 == 0, "the softmax pass gives each lane at most two rows");

struct RunningSoftmax {
  float m[kHeads];
  float l[kHeads];
  float alpha[kHeads];  // rescale of the accumulators for the current tile
};

constexpr size_t kTileBytes = sizeof(__nv_bfloat16) * TILE * kDimK;

// Two tile buffers (double buffering), the tile's probabilities and the compacted list.
inline size_t shared_bytes(int chunk) {
  return kTileBytes * 2 + sizeof(float) * TILE * kPStride + sizeof(int32_t) * chunk;
}

// This warp's 4 heads of the query, dims 64*j + 2*lane (+1), pre-scaled to base-2 logits.
__device__ void load_query(const Args& a, int64_t t, int head0, float (&q)[kHeadsPerWarp][kPairs][2]) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int hh = 0; hh < kHeadsPerWarp; ++hh) {
    const int64_t th = t * kHeads + head0 + hh;
#pragma unroll
    for (int j = 0; j < kPairs; ++j) {
      const __nv_bfloat16* src = j < kPairs - 1 ? a.q_nope + th * kDimV + 64 * j : a.q_pe + th * kDimPe;
      const float2 v = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(src + 2 * lane));
      q[hh][j][0] = v.x * a.scale2;
      q[hh][j][1] = v.y * a.scale2;
    }
  }
}

// Copies the valid entries of list[begin, end) to out in order; returns their count.
__device__ int compact_indices(const int32_t* list, int64_t begin, int64_t end, int64_t rows, int32_t* out,
                               int* warp_counts) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  int total = 0;
  for (int64_t start = begin; start < end; start += NTHREADS) {
    const int64_t i = start + threadIdx.x;
    const int32_t row = i < end ? list[i] : -1;
    const bool valid = row >= 0 && row < rows;  // the generator's padding is -1
    const unsigned ballot = __ballot_sync(0xffffffffu, valid);
    if (lane == 0) warp_counts[warp] = __popc(ballot);
    __syncthreads();
    int offset = total;
    for (int w = 0; w < warp; ++w) offset += warp_counts[w];
    if (valid) out[offset + __popc(ballot & ((1u << lane) - 1u))] = row;
    for (int w = 0; w < kWarps; ++w) total += warp_counts[w];
    __syncthreads();  // warp_counts is rewritten by the next round
  }
  return total;
}

__device__ void copy_async16(void* shared_dst, const void* global_src) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global_src));
}

// Starts the copies of n rows into a tile buffer, as one cp.async group: they land while
// the block computes on the other buffer.
__device__ void stage_tile_async(const Args& a, const int32_t* rows, int n, __nv_bfloat16* tile) {
  constexpr int kVecPerRow = kDimK / 8;  // 72 16-byte pieces: 64 of ckv, 8 of kpe
  for (int e = threadIdx.x; e < n * kVecPerRow; e += NTHREADS) {
    const int r = e / kVecPerRow;
    const int c = e % kVecPerRow;
    const int64_t row = rows[r];
    const __nv_bfloat16* src =
        c < kDimV / 8 ? a.ckv + row * kDimV + 8 * c : a.kpe + row * kDimPe + 8 * (c - kDimV / 8);
    copy_async16(tile + r * kDimK + 8 * c, src);
  }
  asm volatile("cp.async.commit_group;\n" ::);
}

// Waits until at most `pending` of this thread's newest cp.async groups are in flight.
template <int pending>
__device__ void wait_staged() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

// Sums the 4 per-lane partials over the warp; lanes with (lane & 7) == 0 end up holding
// head ((lane >> 4) & 1) * 2 + ((lane >> 3) & 1). 6 shuffles instead of 4 x 5.
__device__ float reduce_scatter4(float (&v)[kHeadsPerWarp], int lane) {
  const bool hi16 = lane & 16;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const float send = hi16 ? v[i] : v[i + 2];
    const float keep = hi16 ? v[i + 2] : v[i];
    v[i] = keep + __shfl_xor_sync(0xffffffffu, send, 16);
  }
  const bool hi8 = lane & 8;
  float s = (hi8 ? v[1] : v[0]) + __shfl_xor_sync(0xffffffffu, hi8 ? v[0] : v[1], 8);
  s += __shfl_xor_sync(0xffffffffu, s, 4);
  s += __shfl_xor_sync(0xffffffffu, s, 2);
  s += __shfl_xor_sync(0xffffffffu, s, 1);
  return s;
}

__device__ void score_tile(const __nv_bfloat16* tile, int n, const float (&q)[kHeadsPerWarp][kPairs][2],
                           int head0, float* p) {
  const int lane = threadIdx.x % 32;
  for (int r = threadIdx.x / 32 / (kHeads / kHeadsPerWarp); r < n; r += kRowGroups) {
    float acc[kHeadsPerWarp] = {};
#pragma unroll
    for (int j = 0; j < kPairs; ++j) {
      const float2 k =
          __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(tile + r * kDimK + 64 * j + 2 * lane));
#pragma unroll
      for (int hh = 0; hh < kHeadsPerWarp; ++hh) acc[hh] += q[hh][j][0] * k.x + q[hh][j][1] * k.y;
    }
    const float s = reduce_scatter4(acc, lane);
    if ((lane & 7) == 0) p[r * kPStride + head0 + ((lane >> 4) & 1) * 2 + ((lane >> 3) & 1)] = s;
  }
}

// Turns the tile's logits into exp2(s - new max) in place and updates max, sum and alpha.
__device__ void softmax_tile(float* p, int n, RunningSoftmax& rs) {
  const int lane = threadIdx.x % 32;
  for (int h = threadIdx.x / 32; h < kHeads; h += kWarps) {
    float s[TILE / 32];
    float tile_max = -INFINITY;
#pragma unroll
    for (int k = 0; k < TILE / 32; ++k) {
      const int r = lane + 32 * k;
      s[k] = r < n ? p[r * kPStride + h] : -INFINITY;
      tile_max = fmaxf(tile_max, s[k]);
    }
    for (int offset = 16; offset > 0; offset >>= 1)
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, offset));
    const float m_new = fmaxf(rs.m[h], tile_max);  // finite: the tile has at least one row
    float sum = 0.f;
#pragma unroll
    for (int k = 0; k < TILE / 32; ++k) {
      const int r = lane + 32 * k;
      const float e = exp2f(s[k] - m_new);  // 0 for rows past n
      if (r < n) p[r * kPStride + h] = e;
      sum += e;
    }
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane == 0) {
      const float alpha = exp2f(rs.m[h] - m_new);  // 0 on the first tile (m = -inf)
      rs.alpha[h] = alpha;
      rs.l[h] = rs.l[h] * alpha + sum;
      rs.m[h] = m_new;
    }
  }
}

__device__ void accumulate_tile(const __nv_bfloat16* tile, const float* p, int n, const RunningSoftmax& rs,
                                float (&acc)[kHeadsPerThread][8]) {
  const int chunk = threadIdx.x % kChunks;
  const int head0 = threadIdx.x / kChunks * kHeadsPerThread;
#pragma unroll
  for (int hh = 0; hh < kHeadsPerThread; ++hh) {
    const float alpha = rs.alpha[head0 + hh];
#pragma unroll
    for (int k = 0; k < 8; ++k) acc[hh][k] *= alpha;
  }
  for (int r = 0; r < n; ++r) {
    const uint4 packed = *reinterpret_cast<const uint4*>(tile + r * kDimK + 8 * chunk);
    const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&packed);
    float v[8];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 f = __bfloat1622float2(pairs[k]);
      v[2 * k] = f.x;
      v[2 * k + 1] = f.y;
    }
#pragma unroll
    for (int hh = 0; hh < kHeadsPerThread; ++hh) {
      const float w = p[r * kPStride + head0 + hh];
#pragma unroll
      for (int k = 0; k < 8; ++k) acc[hh][k] += w * v[k];
    }
  }
}

__global__ void __launch_bounds__(NTHREADS, 1) dsa_split_kernel(Args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  auto* tiles = reinterpret_cast<__nv_bfloat16*>(smem);  // two buffers of TILE rows
  auto* p = reinterpret_cast<float*>(smem + kTileBytes * 2);
  auto* rows = reinterpret_cast<int32_t*>(smem + kTileBytes * 2 + sizeof(float) * TILE * kPStride);
  __shared__ RunningSoftmax rs;
  __shared__ int warp_counts[kWarps];

  const int64_t t = blockIdx.x / a.splits;
  const int split = static_cast<int>(blockIdx.x % a.splits);
  const int64_t begin = static_cast<int64_t>(split) * a.chunk;
  const int64_t end = begin + a.chunk < a.topk ? begin + a.chunk : a.topk;
  if (threadIdx.x < kHeads) {
    rs.m[threadIdx.x] = -INFINITY;
    rs.l[threadIdx.x] = 0.f;
  }
  __syncthreads();
  const int head0 = (threadIdx.x / 32) % (kHeads / kHeadsPerWarp) * kHeadsPerWarp;
  float q[kHeadsPerWarp][kPairs][2];
  load_query(a, t, head0, q);
  const int n_valid = compact_indices(a.indices + t * a.topk, begin, end, a.rows, rows, warp_counts);

  float acc[kHeadsPerThread][8] = {};
  if (n_valid > 0) stage_tile_async(a, rows, n_valid < TILE ? n_valid : TILE, tiles);
  for (int base = 0, buffer = 0; base < n_valid; base += TILE, buffer ^= 1) {
    const int n = n_valid - base < TILE ? n_valid - base : TILE;
    const __nv_bfloat16* tile = tiles + buffer * TILE * kDimK;
    if (base + TILE < n_valid) {  // prefetch the next tile into the other buffer
      const int next = n_valid - base - TILE < TILE ? n_valid - base - TILE : TILE;
      stage_tile_async(a, rows + base + TILE, next, tiles + (buffer ^ 1) * TILE * kDimK);
      wait_staged<1>();
    } else {
      wait_staged<0>();
    }
    __syncthreads();
    score_tile(tile, n, q, head0, p);
    __syncthreads();
    softmax_tile(p, n, rs);
    __syncthreads();
    accumulate_tile(tile, p, n, rs, acc);
    __syncthreads();  // the next iteration overwrites p and, by prefetch, this buffer
  }

  const int64_t ts = t * a.splits + split;
  const int chunk = threadIdx.x % kChunks;
  const int hfirst = threadIdx.x / kChunks * kHeadsPerThread;
#pragma unroll
  for (int hh = 0; hh < kHeadsPerThread; ++hh) {
    float4* dst = reinterpret_cast<float4*>(a.part_o + (ts * kHeads + hfirst + hh) * kDimV + 8 * chunk);
    dst[0] = make_float4(acc[hh][0], acc[hh][1], acc[hh][2], acc[hh][3]);
    dst[1] = make_float4(acc[hh][4], acc[hh][5], acc[hh][6], acc[hh][7]);
  }
  if (threadIdx.x < kHeads) {
    a.part_m[ts * kHeads + threadIdx.x] = rs.m[threadIdx.x];
    a.part_l[ts * kHeads + threadIdx.x] = rs.l[threadIdx.x];
  }
}
using CombineKernel = void (*)(const float*, const float*, const float*, int, __nv_bfloat16*, float*);

// The call: splits of at least a tile, at most kCombineThreads a token (one a combine thread), the
// split grid, then combine_kernel in kBlocksPerHead blocks of kCombineThreads per (token, head).
template <int kCombineThreads, int kBlocksPerHead>
int run(CombineKernel combine_kernel, const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
        const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale, DLTensor* output,
        DLTensor* lse, kh_stream_t stream) {
  const int64_t tokens = q_nope->shape[0];
  Args a;
  if (!bind_args(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, a)) return 1;
  if (tokens == 0) return 0;
  if (a.topk <= 0) return 1;
  // Enough blocks to fill the GPU at small batches, but no split shorter than a tile:
  // each split costs a 32 KiB partial written and read back.
  int64_t max_splits = (a.topk + TILE - 1) / TILE;
  if (max_splits > kCombineThreads) max_splits = kCombineThreads;
  int64_t splits = (BLOCKS_TARGET + tokens - 1) / tokens;
  splits = splits < 1 ? 1 : (splits > max_splits ? max_splits : splits);
  a.splits = static_cast<int>(splits);
  a.chunk = static_cast<int>((a.topk + splits - 1) / splits);

  void* scratch = nullptr;
  if (!allocate_partials(static_cast<size_t>(tokens * splits * kHeads), stream, a, scratch)) return 2;

  const size_t smem = shared_bytes(a.chunk);
  cudaFuncSetAttribute(dsa_split_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  dsa_split_kernel<<<static_cast<unsigned>(tokens * splits), NTHREADS, smem, stream>>>(a);
  combine_kernel<<<static_cast<unsigned>(tokens * kHeads * kBlocksPerHead), kCombineThreads, 0, stream>>>(
      a.part_o, a.part_m, a.part_l, a.splits, static_cast<__nv_bfloat16*>(output->data),
      static_cast<float*>(lse->data));
  cudaFreeAsync(scratch, stream);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

}  // namespace dsa_cuda_core
