// The selection of the loop's indexer candidates smem_select, fp8_mma, pool_keep and mma_pipe
// (loop/candidates/*; their notes are there): one block per request, 3 radix passes over the row
// kept in shared memory. Each candidate adds its own scoring kernel and entry point; range_select
// replaced this selection (indexer_range_select.cuh).
#pragma once

#include <kharness/kernel.h>

#include <cub/block/block_scan.cuh>

#include "indexer_layout.h"

namespace dsa_radix_select {

__device__ __forceinline__ int64_t clamped_len(const int32_t* seq_lens, int b, int64_t capacity) {
  const int64_t n = seq_lens[b];
  return n < 0 ? 0 : (n > capacity ? capacity : n);
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
    if (bin != kNoBin && lane == __ffs(peers) - 1)
      atomicAdd(&hist[bin], static_cast<unsigned>(__popc(peers)));
  }
}

struct SelectShared {
  unsigned hist[kMaxBins];
  uint32_t prefix;
  int remaining;
  int above_slots;
  int equal_slots;
};

__device__ __forceinline__ uint32_t load_key(const uint32_t* skeys, const float* row, bool in_smem,
                                             int64_t i) {
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
    for (int i = threadIdx.x; i < kTopK; i += kSelectThreads)
      out_row[i] = i < n ? global_index(table_row, i) : -1;
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
          skeys4[idx] =
              make_uint4(order_key(v[u].x), order_key(v[u].y), order_key(v[u].z), order_key(v[u].w));
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

// Host-side set-up of select_kernel for rows of max_pages pages, before its launch.
inline void prepare_select(int max_pages) {
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const size_t smem_bytes = sizeof(uint32_t) * static_cast<size_t>(select_smem_keys(capacity));
  if (smem_bytes > 48 * 1024)
    cudaFuncSetAttribute(select_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(smem_bytes));
}

// The selection, stream-ordered after the scoring (scores: nullptr when no row needs them).
inline void launch_select(const float* scores, const DLTensor* seq_lens, const DLTensor* block_table,
                          int batch, int max_pages, DLTensor* topk_indices, cudaStream_t stream) {
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int smem_keys = select_smem_keys(capacity);
  const size_t smem_bytes = sizeof(uint32_t) * static_cast<size_t>(smem_keys);
  select_kernel<<<batch, kSelectThreads, smem_bytes, stream>>>(
      scores, static_cast<const int32_t*>(seq_lens->data), static_cast<const int32_t*>(block_table->data),
      max_pages, smem_keys, static_cast<int32_t*>(topk_indices->data));
}

}  // namespace dsa_radix_select
