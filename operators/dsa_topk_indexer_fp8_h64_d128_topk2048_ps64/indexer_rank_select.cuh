// The selection of the loop's indexer candidate rank_select, shared by the candidates built on it
// (loop/candidates/rank_select, scale_prefetch, fused_small): one block of 1024 threads per
// request picks the request's top-k from its f32 scores. Each candidate adds its own scoring
// kernel and entry point (see loop/README.md for the lineage and what each changed).
#pragma once

#include <cub/block/block_scan.cuh>

#include "indexer_layout.h"

namespace dsa_rank_select {

__device__ __forceinline__ int64_t clamped_len(const int32_t* seq_lens, int b, int64_t capacity) {
  const int64_t n = seq_lens[b];
  return n < 0 ? 0 : (n > capacity ? capacity : n);
}

// ---------------------------------------------------------------------------------------------
// Selection (range_select's, with a shorter serial chain). One block per request:
//  1. load: the row's scores (float4, L2-only loads) into shared memory, the row's min/max, and
//     the row's block-table prefix into shared memory (the gather reads it there, not in L2);
//     every warp reduces the per-warp min/max itself (no second barrier);
//  2. histogram: 2048 "range bins" spread evenly over [min, max] (bin = floor((x - lo) * scale),
//     clamped; round-to-nearest subtract and multiply are monotone, so the bin is a monotone
//     function of the score, and a higher bin means a strictly higher score);
//  3. a block scan finds the threshold bin tb (A = keys in bins above it < 2048 <= A + count[tb])
//     and each bin's first output slot; a gather sweep writes every key of a bin above tb to its
//     bin's slot and lists tb's keys (position and order-preserving key);
//  4. exact choice among tb's keys: when tb holds at most kRank keys (the usual case: ~10-100),
//     each listed key's rank among them (key descending, list position breaking ties: a strict
//     total order, so the ranks are 0..cand-1, each once) is counted directly by one thread per
//     key, and ranks below `need` take slots A + rank: no barrier, no scan. Otherwise
//     range_select's 3 radix passes (11/11/10 bits) over tb's keys (or over the row filtered by
//     bin == tb if the list overflowed), then keys above the threshold key plus exactly
//     `take_equal` keys equal to it (an atomic counter caps them).
// ---------------------------------------------------------------------------------------------
constexpr int kSelectThreads = 1024;
constexpr int kMaxSmemKeys = 40 * 1024;  // 160 KB of dynamic shared memory; rows up to 640 pages
constexpr int kBins = 2048;
constexpr int kRankMax = 256;

__device__ __forceinline__ uint32_t order_key(float x) {
  uint32_t bits = __float_as_uint(x);
  if (bits == 0x80000000u) bits = 0;  // -0 == +0
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

__device__ __forceinline__ int32_t global_index(const int32_t* table_row, int64_t pos) {
  return static_cast<int32_t>(int64_t{table_row[pos / kPageTokens]} * kPageTokens + pos % kPageTokens);
}

// Monotone non-decreasing in x (scale >= 0, +inf allowed: then x == lo gives NaN -> bin 0, x > lo
// gives inf -> the last bin). Equal x give equal bins; bin(x) > bin(y) implies x > y.
__device__ __forceinline__ int range_bin(float x, float lo, float scale) {
  const float f = __fmul_rn(__fsub_rn(x, lo), scale);
  if (!(f >= 1.f)) return 0;
  if (f >= static_cast<float>(kBins - 1)) return kBins - 1;
  return static_cast<int>(f);  // truncation == floor for f in [1, kBins - 1)
}

template <int kThreads, int kCand, int kTablePages>
struct SelectShared {
  static constexpr int kRank = kRankMax < kThreads ? kRankMax : kThreads;
  unsigned hist[kBins];        // range-bin histogram, then the radix histograms of the refinement
  unsigned cursor[kBins];      // next output slot of each range bin >= tb
  uint32_t cand[kCand];        // row positions of tb's keys
  uint32_t cand_key[kRank];    // their order-preserving keys (the first kRank of them)
  int32_t table[kTablePages];  // the row's block-table prefix
  float warp_min[kThreads / 32];
  float warp_max[kThreads / 32];
  int tbin;
  int above;       // keys in bins above tb
  int cand_count;  // keys in tb
  uint32_t prefix;
  int remaining;
  int above_slots;
  int equal_slots;
};

// Picks the digit (of `bits` bits at `shift`) that holds the remaining-th largest key among the
// keys matching the prefix so far, from sh.hist; updates sh.prefix/sh.remaining and zeroes
// sh.hist for the next pass. Every thread calls it. (range_select's, for any block size.)
template <int kThreads, class Shared, class Scan>
__device__ void choose_digit(Shared& sh, typename Scan::TempStorage& scan, int bits, int shift) {
  constexpr int kItems = kBins / kThreads;
  const int nb = 1 << bits;
  unsigned count[kItems];
  unsigned at_or_above[kItems];
  int digit[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    digit[j] = nb - 1 - (kItems * static_cast<int>(threadIdx.x) + j);
    count[j] = digit[j] >= 0 ? sh.hist[digit[j]] : 0u;
  }
  Scan(scan).InclusiveSum(count, at_or_above);
  const int need = sh.remaining;
  const uint32_t want = sh.prefix;
  __syncthreads();  // everyone has read hist, prefix and remaining before they change
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if (digit[j] >= 0 && at_or_above[j] >= static_cast<unsigned>(need) &&
        at_or_above[j] - count[j] < static_cast<unsigned>(need)) {
      sh.prefix = want | (static_cast<uint32_t>(digit[j]) << shift);
      sh.remaining = need - static_cast<int>(at_or_above[j] - count[j]);
    }
  }
  for (int i = threadIdx.x; i < kBins; i += kThreads) sh.hist[i] = 0;
  __syncthreads();
}

// Writes the top-kTopK of row[0, n) (n > kTopK) to out_row[0, kTopK). Every thread of the block
// (kThreads of them) calls it. sx: n floats of shared memory when in_smem (else unused).
template <int kThreads, int kCand, int kTablePages>
__device__ void select_row(
    SelectShared<kThreads, kCand, kTablePages>& sh,
    typename cub::BlockScan<unsigned, kThreads, cub::BLOCK_SCAN_WARP_SCANS>::TempStorage& scan, float* sx,
    bool in_smem, const float* row, int n, const int32_t* __restrict__ table_row,
    int32_t* __restrict__ out_row) {
  using Scan = cub::BlockScan<unsigned, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  using Shared = SelectShared<kThreads, kCand, kTablePages>;
  constexpr int kItems = kBins / kThreads;
  constexpr int kWarps = kThreads / 32;
  constexpr int kRank = Shared::kRank;
  static_assert(kBins % kThreads == 0 && kWarps <= 32, "block shape");
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int pages = (n + kPageTokens - 1) / kPageTokens;
  const bool table_in_smem = pages <= kTablePages;

  for (int i = tid; i < kBins; i += kThreads) sh.hist[i] = 0;
  if (tid == 0) {
    sh.above_slots = 0;
    sh.equal_slots = 0;
  }
  if (table_in_smem)
    for (int p = tid; p < pages; p += kThreads) sh.table[p] = __ldg(table_row + p);

  // Sweep 1: load (into shared memory when it fits) and the row's min / max. Rows start 256-byte
  // aligned (the row stride is a multiple of 64 floats) and hold at least round_up(n, 4) floats,
  // so float4 loads past n stay inside the row; those values (never written: garbage) are stored
  // but never read, and kept out of the min / max.
  float mn = __int_as_float(0x7f800000);  // +inf
  float mx = __int_as_float(0xff800000);  // -inf
  {
    const int n4 = (n + 3) / 4;
    const float4* row4 = reinterpret_cast<const float4*>(row);
    float4* sx4 = reinterpret_cast<float4*>(sx);
    constexpr int kUnroll = 8;
    for (int base = 0; base < n4; base += kThreads * kUnroll) {
      float4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int idx = base + u * kThreads + tid;
        if (idx < n4) v[u] = __ldcg(row4 + idx);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int idx = base + u * kThreads + tid;
        if (idx < n4) {
          if (in_smem) sx4[idx] = v[u];
          const int e = idx * 4;  // < n
          mn = fminf(mn, v[u].x);
          mx = fmaxf(mx, v[u].x);
          if (e + 1 < n) {
            mn = fminf(mn, v[u].y);
            mx = fmaxf(mx, v[u].y);
          }
          if (e + 2 < n) {
            mn = fminf(mn, v[u].z);
            mx = fmaxf(mx, v[u].z);
          }
          if (e + 3 < n) {
            mn = fminf(mn, v[u].w);
            mx = fmaxf(mx, v[u].w);
          }
        }
      }
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    mn = fminf(mn, __shfl_xor_sync(0xffffffffu, mn, off));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
  }
  if (lane == 0) {
    sh.warp_min[warp] = mn;
    sh.warp_max[warp] = mx;
  }
  __syncthreads();  // also publishes the zeroed histogram, the table prefix and the row
  // Every warp reduces the warp partials itself: min / max are exact in any order, and every
  // thread then computes scale with the same operations, so all agree on the bin map.
  mn = lane < kWarps ? sh.warp_min[lane] : __int_as_float(0x7f800000);
  mx = lane < kWarps ? sh.warp_max[lane] : __int_as_float(0xff800000);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    mn = fminf(mn, __shfl_xor_sync(0xffffffffu, mn, off));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
  }
  const float lo = mn;
  // hi == lo (or no finite score): one bin; hi - lo overflowing to inf gives scale 0: one bin.
  const float scale = mx > mn ? __fdiv_rn(static_cast<float>(kBins), __fsub_rn(mx, mn)) : 0.f;
  auto value = [&](int i) -> float { return in_smem ? sx[i] : __ldcg(row + i); };
  auto index_of = [&](int i) -> int32_t {
    return table_in_smem
               ? static_cast<int32_t>(int64_t{sh.table[i / kPageTokens]} * kPageTokens + i % kPageTokens)
               : global_index(table_row, i);
  };

  // Sweep 2: range-bin histogram.
  for (int i = tid; i < n; i += kThreads) atomicAdd(&sh.hist[range_bin(value(i), lo, scale)], 1u);
  __syncthreads();

  // Threshold bin: thread t holds descending positions kItems*t + j (bin kBins-1-(kItems*t + j)).
  {
    unsigned count[kItems];
    unsigned at_or_above[kItems];
    int bin[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      bin[j] = kBins - 1 - (kItems * tid + j);
      count[j] = sh.hist[bin[j]];
    }
    Scan(scan).InclusiveSum(count, at_or_above);
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const unsigned above = at_or_above[j] - count[j];
      sh.cursor[bin[j]] = above;
      if (at_or_above[j] >= static_cast<unsigned>(kTopK) && above < static_cast<unsigned>(kTopK)) {
        sh.tbin = bin[j];
        sh.above = static_cast<int>(above);
        sh.cand_count = static_cast<int>(count[j]);
      }
    }
  }
  __syncthreads();
  const int tb = sh.tbin;
  const int above_bins = sh.above;      // A: slots [0, A) go to bins above tb
  const int cand = sh.cand_count;       // keys in tb, >= need
  const int need = kTopK - above_bins;  // slots [A, kTopK) go to tb's keys, >= 1
  const bool take_all = cand == need;
  const bool use_list = cand <= kCand;

  // Sweep 3: gather the bins above tb; list (or, if it holds exactly `need` keys, write) tb's keys.
  for (int i = tid; i < n; i += kThreads) {
    const float x = value(i);
    const int d = range_bin(x, lo, scale);
    if (d >= tb) {
      const unsigned s = atomicAdd(&sh.cursor[d], 1u);  // [above_d, above_d + count_d)
      if (d > tb || take_all) {
        out_row[s] = index_of(i);
      } else if (use_list) {
        const unsigned j = s - static_cast<unsigned>(above_bins);  // [0, cand)
        sh.cand[j] = static_cast<uint32_t>(i);
        if (j < static_cast<unsigned>(kRank)) sh.cand_key[j] = order_key(x);
      }
    }
  }
  if (take_all) return;  // block-uniform
  __syncthreads();       // the list is complete; everyone is done with the range histogram

  // Short threshold bin: rank the listed keys directly.
  if (use_list && cand <= kRank) {  // block-uniform
    if (tid < cand) {
      const uint32_t key = sh.cand_key[tid];
      int rank = 0;
      for (int m = 0; m < cand; ++m) {
        const uint32_t km = sh.cand_key[m];
        rank += (km > key || (km == key && m < tid)) ? 1 : 0;
      }
      if (rank < need) out_row[above_bins + rank] = index_of(static_cast<int>(sh.cand[tid]));
    }
    return;
  }

  for (int i = tid; i < kBins; i += kThreads) sh.hist[i] = 0;
  if (tid == 0) {
    sh.prefix = 0;
    sh.remaining = need;
  }
  __syncthreads();

  // Every key of tb, in any order (no warp-collective operations inside f).
  auto for_each_cand = [&](auto&& f) {
    if (use_list) {
      for (int j = tid; j < cand; j += kThreads) {
        const int i = static_cast<int>(sh.cand[j]);
        f(i, order_key(value(i)));
      }
    } else {
      for (int i = tid; i < n; i += kThreads) {
        const float x = value(i);
        if (range_bin(x, lo, scale) == tb) f(i, order_key(x));
      }
    }
  };

  // Refinement: three radix passes over tb's keys: bits [31, 21), [21, 10), [10, 0).
#pragma unroll 1
  for (int pass = 0; pass < 3; ++pass) {
    const int bits = pass == 2 ? 10 : 11;
    const int shift = pass == 0 ? 21 : (pass == 1 ? 10 : 0);
    const uint32_t digit_mask = (1u << bits) - 1u;
    const uint32_t high_mask = pass == 0 ? 0u : ~((digit_mask << shift) | ((1u << shift) - 1u));
    const uint32_t want = sh.prefix & high_mask;
    for_each_cand([&](int, uint32_t key) {
      if ((key & high_mask) == want) atomicAdd(&sh.hist[(key >> shift) & digit_mask], 1u);
    });
    __syncthreads();
    choose_digit<kThreads, Shared, Scan>(sh, scan, bits, shift);
  }
  const uint32_t threshold = sh.prefix;
  const int take_equal = sh.remaining;                    // >= 1
  const int equal_base = above_bins + need - take_equal;  // tb's keys above the threshold: need - take_equal
  for_each_cand([&](int i, uint32_t key) {
    if (key > threshold) {
      const int s = atomicAdd(&sh.above_slots, 1);
      out_row[above_bins + s] = index_of(i);
    } else if (key == threshold) {
      const int e = atomicAdd(&sh.equal_slots, 1);
      if (e < take_equal) out_row[equal_base + e] = index_of(i);
    }
  });
}

// Rows of at most kTopK tokens: every token, then -1.
__device__ __forceinline__ void write_short_row(const int32_t* __restrict__ table_row, int n,
                                                int32_t* __restrict__ out_row, int tid, int threads) {
  for (int i = tid; i < kTopK; i += threads) out_row[i] = i < n ? global_index(table_row, i) : -1;
}

constexpr int kBigCand = 4096;
constexpr int kBigTablePages = kMaxSmemKeys / kPageTokens;  // 640
using BigShared = SelectShared<kSelectThreads, kBigCand, kBigTablePages>;
using BigScan = cub::BlockScan<unsigned, kSelectThreads, cub::BLOCK_SCAN_WARP_SCANS>;

// One request per block (select_kernel's body; candidates that launch the selection with PDL wrap
// select_request<true> in their own kernel). kWaitForScores: launched as the score grid's programmatic
// dependent (PDL), so the scores are read only after griddepcontrol.wait (the score grid's completion and the
// visibility of its writes); rows of at most kTopK tokens, which need no scores, are written before it.
template <bool kWaitForScores>
__device__ __forceinline__ void select_request(const float* scores, const int32_t* __restrict__ seq_lens,
                                               const int32_t* __restrict__ block_table, int max_pages,
                                               int smem_keys, int32_t* __restrict__ out) {
  __shared__ typename BigScan::TempStorage scan;
  __shared__ BigShared sh;
  extern __shared__ float4 dyn_smem[];
  const int b = blockIdx.x;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int n = static_cast<int>(clamped_len(seq_lens, b, capacity));
  const int32_t* table_row = block_table + int64_t{b} * max_pages;
  int32_t* out_row = out + int64_t{b} * kTopK;
  if (n <= kTopK) {  // every token is selected (block-uniform)
    write_short_row(table_row, n, out_row, threadIdx.x, kSelectThreads);
    return;
  }
  if constexpr (kWaitForScores) asm volatile("griddepcontrol.wait;\n" ::: "memory");
  select_row<kSelectThreads, kBigCand, kBigTablePages>(sh, scan, reinterpret_cast<float*>(dyn_smem),
                                                       n <= smem_keys, scores + int64_t{b} * capacity, n,
                                                       table_row, out_row);
}

__global__ void __launch_bounds__(kSelectThreads)
    select_kernel(const float* scores, const int32_t* __restrict__ seq_lens,
                  const int32_t* __restrict__ block_table, int max_pages, int smem_keys,
                  int32_t* __restrict__ out) {
  select_request<false>(scores, seq_lens, block_table, max_pages, smem_keys, out);
}

}  // namespace dsa_rank_select
