// smem_select: the baseline's fp32 scoring kernel (unchanged, except that requests with
// seq_len <= 2048 skip it: every token is selected anyway) + a new selection kernel that works
// from shared memory.
//
// Why faster: the baseline's selection is one block per request doing 4 radix passes of 8-bit
// digits plus a gather, i.e. 5 full passes over the row in GLOBAL memory, each a loop of dependent
// ~0.5 us L2 round trips with one global atomic per key into 256 bins that the keys crowd (scores
// share a few exponents, so the first passes serialise on a handful of bins). Here the row is read
// from global memory once (float4, 8 loads in flight per thread: 128 KB for 32K tokens, ~1-2 us on
// one SM), kept in shared memory as uint32 order keys (up to 48K keys = 192 KB dynamic smem), and
// 3 radix passes (11/11/10-bit digits) + the gather run on shared memory with warp-aggregated
// atomics (__match_any_sync: one atomic per distinct bin per warp). Expected selection time
// ~3-6 us for 32K tokens instead of ~25-40 us; at B=28-29 the 28 blocks run side by side.
// Scoring is the baseline's (fp32 FFMA, compute-bound), so large batches gain less: expected
// B1 P32 ~12 us (23), B1 P282 ~20 us (48), B5 P311 ~30 us (63), B29 P134 ~70 us (104),
// B28 P405 ~200 us (263).
// Tie handling is the baseline's: threshold key, all keys above it, then exactly take_equal keys
// equal to it through a capped atomic counter.
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <kharness/kernel.h>

#include <cub/block/block_scan.cuh>

#include "indexer_layout.h"

#define SCORE_WARPS 4
#define WARP_TOKENS 8
#define PAGES_PER_BLOCK 2

namespace {

constexpr int kTokensPerWarp = kPageTokens / SCORE_WARPS;
static_assert(kTokensPerWarp % WARP_TOKENS == 0, "WARP_TOKENS must divide a warp's share of the page");

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

__global__ void __launch_bounds__(SCORE_WARPS * 32)
    score_kernel(const uint8_t* __restrict__ q, const uint8_t* __restrict__ cache,
                 const float* __restrict__ weights, const int32_t* __restrict__ seq_lens,
                 const int32_t* __restrict__ block_table, int max_pages, float* __restrict__ scores) {
  const int b = blockIdx.y;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t seq_len = clamped_len(seq_lens, b, capacity);
  const int64_t pages = (seq_len + kPageTokens - 1) / kPageTokens;
  const int64_t first = int64_t{blockIdx.x} * PAGES_PER_BLOCK;
  if (seq_len <= kTopK || first >= pages) return;  // short rows need no scores
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

// ---------------------------------------------------------------------------------------------
// Selection: one block of 1024 threads per request. Pass 0 copies the row's scores into shared
// memory as order-preserving uint32 keys (float4 loads, 8 in flight per thread), then three radix
// passes of 11, 11 and 10 bits run on shared memory (the first pass's crowded bins fed by
// warp-aggregated atomics: __match_any_sync groups equal bins, one atomicAdd per distinct bin per
// warp; the later passes' spread-out bins by plain shared atomics), then one
// gather pass: every key above the threshold key (warp-aggregated slot counter) plus exactly
// `take_equal` keys equal to it (an atomic counter caps them, as in the baseline).
// Rows longer than the shared-memory budget (never the case up to 768 pages) read the keys from
// global memory on every pass instead.
// ---------------------------------------------------------------------------------------------
constexpr int kSelectThreads = 1024;
constexpr int kMaxSmemKeys = 48 * 1024;  // 192 KB of dynamic shared memory; rows up to 768 pages
constexpr int kMaxBins = 2048;
constexpr uint32_t kNoBin = 0xFFFFFFFFu;

__device__ __forceinline__ uint32_t order_key(float x) {
  uint32_t bits = __float_as_uint(x);
  if (bits == 0x80000000u) bits = 0;  // -0 == +0
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

__device__ __forceinline__ int32_t global_index(const int32_t* table_row, int64_t pos) {
  return static_cast<int32_t>(int64_t{table_row[pos / kPageTokens]} * kPageTokens + pos % kPageTokens);
}

// All 32 lanes of the warp must call this (the callers' loops are warp-uniform).
__device__ __forceinline__ void warp_histogram_add(unsigned* hist, uint32_t bin) {
  if (__any_sync(0xffffffffu, bin != kNoBin)) {
    const unsigned peers = __match_any_sync(0xffffffffu, bin);
    const int lane = threadIdx.x & 31;
    if (bin != kNoBin && lane == __ffs(peers) - 1) atomicAdd(&hist[bin], static_cast<unsigned>(__popc(peers)));
  }
}

struct SelectShared {
  unsigned hist[kMaxBins];
  uint32_t prefix;
  int remaining;
  int above_slots;
  int equal_slots;
};

__device__ __forceinline__ uint32_t load_key(const uint32_t* skeys, const float* row, bool in_smem, int64_t i) {
  return in_smem ? skeys[i] : order_key(row[i]);
}

// Picks the digit (of `bits` bits at `shift`) that holds the remaining-th largest key among the
// keys matching the prefix so far, from sh.hist; updates sh.prefix/sh.remaining and zeroes
// sh.hist for the next pass. Every thread calls it.
template <class Scan>
__device__ void choose_digit(SelectShared& sh, typename Scan::TempStorage& scan, int bits, int shift) {
  const int nb = 1 << bits;
  // Thread t holds descending positions 2t and 2t+1 (digits nb-1-2t, nb-2-2t); the inclusive
  // sum counts keys at or above each digit.
  unsigned count[2];
  unsigned at_or_above[2];
  int digit[2];
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    digit[j] = nb - 1 - (2 * static_cast<int>(threadIdx.x) + j);
    count[j] = digit[j] >= 0 ? sh.hist[digit[j]] : 0u;
  }
  Scan(scan).InclusiveSum(count, at_or_above);
  const int need = sh.remaining;
  const uint32_t want = sh.prefix;
  __syncthreads();  // everyone has read hist, prefix and remaining before they change
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    if (digit[j] >= 0 && at_or_above[j] >= static_cast<unsigned>(need) &&
        at_or_above[j] - count[j] < static_cast<unsigned>(need)) {
      sh.prefix = want | (static_cast<uint32_t>(digit[j]) << shift);
      sh.remaining = need - static_cast<int>(at_or_above[j] - count[j]);
    }
  }
  for (int i = threadIdx.x; i < kMaxBins; i += kSelectThreads) sh.hist[i] = 0;
  __syncthreads();
}

__global__ void __launch_bounds__(kSelectThreads)
    select_kernel(const float* __restrict__ scores, const int32_t* __restrict__ seq_lens,
                  const int32_t* __restrict__ block_table, int max_pages, int smem_keys,
                  int32_t* __restrict__ out) {
  using Scan = cub::BlockScan<unsigned, kSelectThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ SelectShared sh;
  extern __shared__ uint4 dyn_smem[];
  uint32_t* skeys = reinterpret_cast<uint32_t*>(dyn_smem);

  const int b = blockIdx.x;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t n = clamped_len(seq_lens, b, capacity);
  const int32_t* table_row = block_table + int64_t{b} * max_pages;
  int32_t* out_row = out + int64_t{b} * kTopK;
  if (n <= kTopK) {  // every token is selected
    for (int i = threadIdx.x; i < kTopK; i += kSelectThreads) out_row[i] = i < n ? global_index(table_row, i) : -1;
    return;
  }
  const float* row = scores + int64_t{b} * capacity;
  const bool in_smem = n <= smem_keys;
  const int lane = threadIdx.x & 31;

  for (int i = threadIdx.x; i < kMaxBins; i += kSelectThreads) sh.hist[i] = 0;
  if (threadIdx.x == 0) {
    sh.prefix = 0;
    sh.remaining = kTopK;
    sh.above_slots = 0;
    sh.equal_slots = 0;
  }
  if (in_smem) {
    // Rows start 256-byte aligned (capacity is a multiple of 64 floats) and the scratch row
    // holds capacity >= round_up(n, 4) floats, so float4 loads past n stay inside the row
    // (those keys are stored but never read).
    const int64_t n4 = (n + 3) / 4;
    const float4* row4 = reinterpret_cast<const float4*>(row);
    uint4* skeys4 = reinterpret_cast<uint4*>(skeys);
    constexpr int kUnroll = 8;
    for (int64_t base = 0; base < n4; base += int64_t{kSelectThreads} * kUnroll) {
      float4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t idx = base + int64_t{u} * kSelectThreads + threadIdx.x;
        if (idx < n4) v[u] = __ldg(row4 + idx);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t idx = base + int64_t{u} * kSelectThreads + threadIdx.x;
        if (idx < n4)
          skeys4[idx] = make_uint4(order_key(v[u].x), order_key(v[u].y), order_key(v[u].z), order_key(v[u].w));
      }
    }
  }
  __syncthreads();

  // Three radix passes: bits [31, 21), [21, 10), [10, 0).
#pragma unroll 1
  for (int pass = 0; pass < 3; ++pass) {
    const int bits = pass == 2 ? 10 : 11;
    const int shift = pass == 0 ? 21 : (pass == 1 ? 10 : 0);
    const uint32_t digit_mask = (1u << bits) - 1u;
    const uint32_t high_mask = pass == 0 ? 0u : ~((digit_mask << shift) | ((1u << shift) - 1u));
    const uint32_t want = sh.prefix & high_mask;
    // base is warp-uniform (threadIdx.x - lane), so every lane of a warp runs the same iterations.
    for (int64_t base = threadIdx.x - lane; base < n; base += kSelectThreads) {
      const int64_t i = base + lane;
      uint32_t bin = kNoBin;
      if (i < n) {
        const uint32_t key = load_key(skeys, row, in_smem, i);
        if ((key & high_mask) == want) bin = (key >> shift) & digit_mask;
      }
      // Pass 0's digits (sign, exponent, 2 mantissa bits) crowd a few bins: warp-aggregate them.
      // Passes 1 and 2 take lower mantissa bits, spread over the bins: plain atomics.
      if (pass == 0)
        warp_histogram_add(sh.hist, bin);
      else if (bin != kNoBin)
        atomicAdd(&sh.hist[bin], 1u);
    }
    __syncthreads();
    choose_digit<Scan>(sh, scan, bits, shift);
  }
  const uint32_t threshold = sh.prefix;
  const int take_equal = sh.remaining;
  const int above_total = kTopK - take_equal;

  for (int64_t base = threadIdx.x - lane; base < n; base += kSelectThreads) {
    const int64_t i = base + lane;
    uint32_t key = 0;
    if (i < n) key = load_key(skeys, row, in_smem, i);
    const bool above = i < n && key > threshold;
    const bool equal = i < n && key == threshold;
    const unsigned ballot = __ballot_sync(0xffffffffu, above);
    if (ballot != 0u) {
      const int leader = __ffs(ballot) - 1;
      int first = 0;
      if (lane == leader) first = atomicAdd(&sh.above_slots, __popc(ballot));
      first = __shfl_sync(0xffffffffu, first, leader);
      if (above) out_row[first + __popc(ballot & ((1u << lane) - 1u))] = global_index(table_row, i);
    }
    if (equal) {
      const int e = atomicAdd(&sh.equal_slots, 1);
      if (e < take_equal) out_row[above_total + e] = global_index(table_row, i);
    }
  }
}

// Dynamic shared memory of select_kernel for rows of `capacity` tokens (0 past the budget).
inline int select_smem_keys(int64_t capacity) {
  return capacity <= kMaxSmemKeys ? static_cast<int>(capacity) : 0;
}

inline void launch_select(const float* scores, const DLTensor* seq_lens, const DLTensor* block_table,
                          int batch, int max_pages, DLTensor* topk_indices, cudaStream_t stream) {
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int smem_keys = select_smem_keys(capacity);
  const size_t smem_bytes = sizeof(uint32_t) * static_cast<size_t>(smem_keys);
  if (smem_bytes > 48 * 1024)
    cudaFuncSetAttribute(select_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_bytes));
  select_kernel<<<batch, kSelectThreads, smem_bytes, stream>>>(
      scores, static_cast<const int32_t*>(seq_lens->data), static_cast<const int32_t*>(block_table->data), max_pages,
      smem_keys, static_cast<int32_t*>(topk_indices->data));
}

}  // namespace

void dsa_topk_indexer_smem_select(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                  const DLTensor* weights, const DLTensor* seq_lens, const DLTensor* block_table,
                                  DLTensor* topk_indices, kh_stream_t stream) {
  const int batch = static_cast<int>(q_index_fp8->shape[0]);
  const int max_pages = static_cast<int>(block_table->shape[1]);
  if (batch == 0) return;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  float* scores = nullptr;
  // Rows of at most kTopK tokens need no scores: without a longer possible row, no scoring at all.
  if (capacity > kTopK) {
    cudaMallocAsync(reinterpret_cast<void**>(&scores), sizeof(float) * batch * capacity, stream);
    cudaFuncSetAttribute(score_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kScoreSmemBytes);
    const dim3 grid(static_cast<unsigned>((max_pages + PAGES_PER_BLOCK - 1) / PAGES_PER_BLOCK),
                    static_cast<unsigned>(batch));
    score_kernel<<<grid, SCORE_WARPS * 32, kScoreSmemBytes, stream>>>(
        static_cast<const uint8_t*>(q_index_fp8->data), static_cast<const uint8_t*>(k_index_cache_fp8->data),
        static_cast<const float*>(weights->data), static_cast<const int32_t*>(seq_lens->data),
        static_cast<const int32_t*>(block_table->data), max_pages, scores);
  }
  launch_select(scores, seq_lens, block_table, batch, max_pages, topk_indices, stream);
  if (scores != nullptr) cudaFreeAsync(scores, stream);
}
