// The CUDA baseline's kernels for dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 and the call that
// launches them (baseline.cu says what they do), in a header so that other solutions can
// build on them: a loop candidate that changes one stage, or a cheat probe that wraps the
// whole call. Its knobs are macros with defaults here; baseline.cu lists them.
#pragma once

#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <kharness/kernel.h>

#include <cub/block/block_scan.cuh>

#include "indexer_layout.h"

#ifndef SCORE_WARPS
#define SCORE_WARPS 4
#endif
#ifndef WARP_TOKENS
#define WARP_TOKENS 8
#endif
#ifndef PAGES_PER_BLOCK
#define PAGES_PER_BLOCK 2
#endif
#ifndef SELECT_THREADS
#define SELECT_THREADS 512
#endif

namespace dsa_indexer {

constexpr int kTokensPerWarp = kPageTokens / SCORE_WARPS;
static_assert(kTokensPerWarp % WARP_TOKENS == 0, "WARP_TOKENS must divide a warp's share of the page");
static_assert(SELECT_THREADS >= 256, "the digit scan gives each of the 256 digits a thread");

// Floats per shared-memory row: 16-byte aligned, and the 4-float pad sends the float4
// loads of eight consecutive rows to distinct banks.
constexpr int kRowStride = kIndexHeadDim + 4;
constexpr int kScoreSmemBytes = 2 * kIndexHeads * kRowStride * static_cast<int>(sizeof(float));
static_assert(kIndexHeads == kPageTokens, "query and key tiles share one shape");

__device__ int64_t clamped_len(const int32_t* seq_lens, int b, int64_t capacity) {
  const int64_t n = seq_lens[b];
  return n < 0 ? 0 : (n > capacity ? capacity : n);
}

// 16 e4m3 values -> float * scale into out[0, 16) (16-byte aligned).
__device__ void dequantise16(uint4 raw, float scale, float* out) {
  const uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    const __half2 lo(
        __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(words[w] & 0xFFFFu), __NV_E4M3));
    const __half2 hi(
        __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(words[w] >> 16), __NV_E4M3));
    const float2 a = __half22float2(lo);
    const float2 c = __half22float2(hi);
    reinterpret_cast<float4*>(out)[w] = make_float4(a.x * scale, a.y * scale, c.x * scale, c.y * scale);
  }
}

// Each of the 512 16-byte chunks of a [64][128] fp8 tile into rows of kRowStride floats.
__device__ void load_tile(const uint8_t* src, const float* scales, float* dst) {
  for (int i = threadIdx.x; i < kPageTokens * kIndexHeadDim / 16; i += blockDim.x) {
    const int row = i / (kIndexHeadDim / 16);
    const uint4 raw = reinterpret_cast<const uint4*>(src)[i];
    dequantise16(raw, scales ? scales[row] : 1.f, dst + row * kRowStride + (i % (kIndexHeadDim / 16)) * 16);
  }
}

__device__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Scores of tokens [t0, t0 + WARP_TOKENS) of the page in `keys`; lane 0 writes those < valid.
__device__ void score_tokens(const float* qs, const float* keys, int t0, float w0, float w1, int valid,
                             float* out) {
  const int lane = threadIdx.x % 32;
  float acc0[WARP_TOKENS] = {};
  float acc1[WARP_TOKENS] = {};
  const float* qa_row = qs + lane * kRowStride;
  const float* qb_row = qs + (lane + 32) * kRowStride;
#pragma unroll 4
  for (int d = 0; d < kIndexHeadDim; d += 4) {
    const float4 qa = *reinterpret_cast<const float4*>(qa_row + d);
    const float4 qb = *reinterpret_cast<const float4*>(qb_row + d);
#pragma unroll
    for (int t = 0; t < WARP_TOKENS; ++t) {
      const float4 k = *reinterpret_cast<const float4*>(keys + (t0 + t) * kRowStride + d);
      acc0[t] = fmaf(qa.x, k.x, fmaf(qa.y, k.y, fmaf(qa.z, k.z, fmaf(qa.w, k.w, acc0[t]))));
      acc1[t] = fmaf(qb.x, k.x, fmaf(qb.y, k.y, fmaf(qb.z, k.z, fmaf(qb.w, k.w, acc1[t]))));
    }
  }
#pragma unroll
  for (int t = 0; t < WARP_TOKENS; ++t) {
    const float s = warp_sum(fmaxf(acc0[t], 0.f) * w0 + fmaxf(acc1[t], 0.f) * w1);
    if (lane == 0 && t0 + t < valid) out[t0 + t] = s;
  }
}

// kSkipShortRows (smem_select's): rows of at most kTopK tokens, all selected, are not scored.
template <bool kSkipShortRows = false>
__global__ void __launch_bounds__(SCORE_WARPS * 32)
    score_kernel(const uint8_t* __restrict__ q, const uint8_t* __restrict__ cache,
                 const float* __restrict__ weights, const int32_t* __restrict__ seq_lens,
                 const int32_t* __restrict__ block_table, int max_pages, float* __restrict__ scores) {
  const int b = blockIdx.y;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t seq_len = clamped_len(seq_lens, b, capacity);
  const int64_t pages = (seq_len + kPageTokens - 1) / kPageTokens;
  const int64_t first = int64_t{blockIdx.x} * PAGES_PER_BLOCK;
  if ((kSkipShortRows && seq_len <= kTopK) || first >= pages) return;
  extern __shared__ float4 smem[];
  float* qs = reinterpret_cast<float*>(smem);
  float* keys = qs + kIndexHeads * kRowStride;
  load_tile(q + int64_t{b} * kIndexHeads * kIndexHeadDim, nullptr, qs);
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const float w0 = weights[b * kIndexHeads + lane];
  const float w1 = weights[b * kIndexHeads + lane + 32];
  const int64_t last = first + PAGES_PER_BLOCK < pages ? first + PAGES_PER_BLOCK : pages;
  for (int64_t p = first; p < last; ++p) {
    const uint8_t* page = cache + int64_t{block_table[int64_t{b} * max_pages + p]} * kPageBytes;
    __syncthreads();  // the previous page's keys are no longer read
    load_tile(page, reinterpret_cast<const float*>(page + kScalesOffset), keys);
    __syncthreads();
    const int valid =
        static_cast<int>(seq_len - p * kPageTokens < kPageTokens ? seq_len - p * kPageTokens : kPageTokens);
    float* out = scores + int64_t{b} * capacity + p * kPageTokens;
    for (int t0 = warp * kTokensPerWarp; t0 < (warp + 1) * kTokensPerWarp && t0 < valid; t0 += WARP_TOKENS)
      score_tokens(qs, keys, t0, w0, w1, valid, out);
  }
}

__device__ uint32_t order_key(float x) {
  uint32_t bits = __float_as_uint(x);
  if (bits == 0x80000000u) bits = 0;  // -0 == +0
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

__device__ int32_t global_index(const int32_t* table_row, int64_t pos) {
  return static_cast<int32_t>(int64_t{table_row[pos / kPageTokens]} * kPageTokens + pos % kPageTokens);
}

// The k-th largest key of row[0, n) and how many keys equal to it the top k takes.
__device__ void radix_select(const float* row, int64_t n, int k, uint32_t* threshold, int* take_equal) {
  using Scan = cub::BlockScan<unsigned, SELECT_THREADS>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ unsigned histogram[256];
  __shared__ uint32_t prefix;
  __shared__ int remaining;
  if (threadIdx.x == 0) {
    prefix = 0;
    remaining = k;
  }
  uint32_t mask = 0;
  for (int shift = 24; shift >= 0; shift -= 8) {
    if (threadIdx.x < 256) histogram[threadIdx.x] = 0;
    __syncthreads();
    const uint32_t want = prefix;
    for (int64_t i = threadIdx.x; i < n; i += SELECT_THREADS) {
      const uint32_t key = order_key(row[i]);
      if ((key & mask) == want) atomicAdd(&histogram[(key >> shift) & 0xFFu], 1u);
    }
    __syncthreads();
    // Thread t holds digit 255 - t; the inclusive sum counts keys at or above its digit.
    const unsigned count = threadIdx.x < 256 ? histogram[255 - threadIdx.x] : 0;
    unsigned at_or_above;
    Scan(scan).InclusiveSum(count, at_or_above);
    const int need = remaining;
    __syncthreads();  // everyone has read `remaining` before it changes
    if (threadIdx.x < 256 && at_or_above >= static_cast<unsigned>(need) &&
        at_or_above - count < static_cast<unsigned>(need)) {
      prefix = want | (static_cast<uint32_t>(255 - threadIdx.x) << shift);
      remaining = need - static_cast<int>(at_or_above - count);
    }
    mask |= 0xFFu << shift;
    __syncthreads();
  }
  *threshold = prefix;
  *take_equal = remaining;
}

__global__ void __launch_bounds__(SELECT_THREADS)
    select_kernel(const float* __restrict__ scores, const int32_t* __restrict__ seq_lens,
                  const int32_t* __restrict__ block_table, int max_pages, int32_t* __restrict__ out) {
  const int b = blockIdx.x;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t n = clamped_len(seq_lens, b, capacity);
  const int32_t* table_row = block_table + int64_t{b} * max_pages;
  int32_t* out_row = out + int64_t{b} * kTopK;
  if (n <= kTopK) {  // every token is selected
    for (int i = threadIdx.x; i < kTopK; i += SELECT_THREADS)
      out_row[i] = i < n ? global_index(table_row, i) : -1;
    return;
  }
  const float* row = scores + int64_t{b} * capacity;
  uint32_t threshold;
  int take_equal;
  radix_select(row, n, kTopK, &threshold, &take_equal);
  __shared__ int above_slots;
  __shared__ int equal_slots;
  if (threadIdx.x == 0) above_slots = equal_slots = 0;
  __syncthreads();
  const int above_total = kTopK - take_equal;
  for (int64_t i = threadIdx.x; i < n; i += SELECT_THREADS) {
    const uint32_t key = order_key(row[i]);
    if (key > threshold) {
      out_row[atomicAdd(&above_slots, 1)] = global_index(table_row, i);
    } else if (key == threshold) {
      const int e = atomicAdd(&equal_slots, 1);
      if (e < take_equal) out_row[above_total + e] = global_index(table_row, i);
    }
  }
}

inline void run(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8, const DLTensor* weights,
                const DLTensor* seq_lens, const DLTensor* block_table, DLTensor* topk_indices,
                kh_stream_t stream) {
  const int batch = static_cast<int>(q_index_fp8->shape[0]);
  const int max_pages = static_cast<int>(block_table->shape[1]);
  if (batch == 0) return;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  float* scores = nullptr;
  if (capacity > 0) {
    cudaMallocAsync(reinterpret_cast<void**>(&scores), sizeof(float) * batch * capacity, stream);
    cudaFuncSetAttribute(score_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, kScoreSmemBytes);
    const dim3 grid(static_cast<unsigned>((max_pages + PAGES_PER_BLOCK - 1) / PAGES_PER_BLOCK),
                    static_cast<unsigned>(batch));
    score_kernel<false><<<grid, SCORE_WARPS * 32, kScoreSmemBytes, stream>>>(
        static_cast<const uint8_t*>(q_index_fp8->data), static_cast<const uint8_t*>(k_index_cache_fp8->data),
        static_cast<const float*>(weights->data), static_cast<const int32_t*>(seq_lens->data),
        static_cast<const int32_t*>(block_table->data), max_pages, scores);
  }
  select_kernel<<<batch, SELECT_THREADS, 0, stream>>>(scores, static_cast<const int32_t*>(seq_lens->data),
                                                      static_cast<const int32_t*>(block_table->data),
                                                      max_pages, static_cast<int32_t*>(topk_indices->data));
  if (scores != nullptr) cudaFreeAsync(scores, stream);
}

}  // namespace dsa_indexer
