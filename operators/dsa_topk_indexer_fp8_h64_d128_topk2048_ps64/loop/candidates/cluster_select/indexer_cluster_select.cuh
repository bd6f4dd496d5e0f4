// The selection of the indexer candidate cluster_select: rank_select's algorithm (2048 range
// bins over the row's [min, max], the threshold bin's keys ranked directly or refined by radix)
// spread over a thread-block cluster of C blocks per request instead of one block.
//
// Why: on the H200 (bench/results/h200-loop/2026-12-04b/call2, profile.md) the one-block
// selection takes 8.5-13 us a call on every regime, more than the scoring on small and medium
// rows, its warps stalled on `wait`, `not_selected` and `math_pipe_throttle` in about equal
// shares: one SM issues every sweep over the row, chains of dependent steps and all. C blocks on
// C SMs share the sweeps; the blocks meet through distributed shared memory (DSMEM) at three
// cluster barriers:
//  1. each block loads its slice of the row (positions [r S, r S + S), S a multiple of 64) into
//     its shared memory, with the slice's min / max; barrier;
//  2. every warp reads the C blocks' min / max (exact in any order, so all blocks agree on the
//     bin map), and each block builds its slice's range-bin histogram; barrier;
//  3. each block reads the C histograms (4 bins a thread, one 16-byte DSMEM load per block):
//     the bins' totals, scanned in descending order, give the threshold bin tb and each bin's
//     first slot A_d; the histograms of the lower-ranked blocks give this block's slot base in
//     each bin (A_d + keys of bin d in blocks 0..r-1). The gather then writes the keys of bins
//     above tb to their slots, and lists tb's keys (position, order key) in block 0's shared
//     memory at this block's base in tb; barrier;
//  4. block 0 alone picks `need` of tb's keys exactly: ranked directly when they are at most
//     kRankDirect (one thread a key), else three radix passes (rank_select's choose_digit) over
//     the list, or over the row filtered by bin == tb when the list overflowed (tie-heavy rows).
// A block never leaves while another may still read its shared memory: the last DSMEM access of
// every block comes before barrier 3, which every block passes before any returns.
#pragma once

#include <cooperative_groups.h>

#include <cub/block/block_scan.cuh>

#include "indexer_layout.h"
#include "indexer_rank_select.cuh"

namespace dsa_cluster_select {

using namespace dsa_rank_select;  // NOLINT(google-build-using-namespace): the shared bin map and radix step
namespace cg = cooperative_groups;

constexpr int kClusterThreads = 512;
constexpr int kItems = kBins / kClusterThreads;  // 4 bins a thread in the scans
constexpr int kWarps = kClusterThreads / 32;
constexpr int kMaxCluster = 8;            // the portable cluster size limit
constexpr int kListMax = 2048;            // tb's keys listed in block 0 (beyond: the filtered-row path)
constexpr int kRankDirect = 256;          // beyond: radix refinement (direct ranking is quadratic)
constexpr int kMaxSliceKeys = 40 * 1024;  // 160 KB of dynamic shared memory per block
static_assert(kItems == 4, "the combine step loads 4 bins as one uint4");

using Scan = cub::BlockScan<unsigned, kClusterThreads, cub::BLOCK_SCAN_WARP_SCANS>;

struct alignas(16) ClusterShared {  // 16: the combine step reads hist as uint4
  unsigned hist[kBins];             // this block's range-bin histogram (block 0: then the radix ones)
  unsigned cursor[kBins];           // this block's next output slot in each bin >= tb
  uint32_t list_pos[kListMax];      // block 0: row positions of tb's keys, from every block
  uint32_t list_key[kListMax];      // block 0: their order-preserving keys
  float warp_min[kWarps];
  float warp_max[kWarps];
  float block_min;
  float block_max;
  unsigned listed;  // tb's keys this block has listed so far
  int tbin;
  int above;         // keys of the whole row in bins above tb
  int cand_count;    // keys of the whole row in tb
  unsigned tb_base;  // keys of tb in blocks 0..r-1
  uint32_t prefix;   // choose_digit's state (block 0's refinement)
  int remaining;
  int above_slots;
  int equal_slots;
};

// Slice length of a row of n keys over c blocks: a multiple of 64, so slices start 256-byte
// aligned (float4 loads) and hold whole pages.
__host__ __device__ __forceinline__ int slice_keys(int64_t n, int c) {
  const int64_t per = (n + c - 1) / c;
  return static_cast<int>((per + kPageTokens - 1) / kPageTokens * kPageTokens);
}

// Sweep 1: this block's slice [begin, end) of `row` into sx (when in_smem) and its min / max
// into sh.block_min / block_max (published by the caller's cluster barrier).
__device__ __forceinline__ void load_slice(ClusterShared& sh, float* sx, bool in_smem, const float* row,
                                           int begin, int end) {
  const int tid = threadIdx.x;
  float mn = __int_as_float(0x7f800000);  // +inf
  float mx = __int_as_float(0xff800000);  // -inf
  // begin is a multiple of 64 and rows hold round_up(n, 4) floats: float4 loads past `end` stay
  // inside the row; their values are stored but never read, and kept out of the min / max.
  const int n4 = (end - begin + 3) / 4;
  const float4* row4 = reinterpret_cast<const float4*>(row + begin);
  float4* sx4 = reinterpret_cast<float4*>(sx);
  for (int idx = tid; idx < n4; idx += kClusterThreads) {
    const float4 v = __ldcg(row4 + idx);
    if (in_smem) sx4[idx] = v;
    const int left = end - begin - idx * 4;  // >= 1
    mn = fminf(mn, v.x);
    mx = fmaxf(mx, v.x);
    if (left > 1) {
      mn = fminf(mn, v.y);
      mx = fmaxf(mx, v.y);
    }
    if (left > 2) {
      mn = fminf(mn, v.z);
      mx = fmaxf(mx, v.z);
    }
    if (left > 3) {
      mn = fminf(mn, v.w);
      mx = fmaxf(mx, v.w);
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    mn = fminf(mn, __shfl_xor_sync(0xffffffffu, mn, off));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
  }
  if ((tid & 31) == 0) {
    sh.warp_min[tid >> 5] = mn;
    sh.warp_max[tid >> 5] = mx;
  }
  __syncthreads();
  if (tid == 0) {  // thread 0 already holds warp 0's
    for (int w = 1; w < kWarps; ++w) {
      mn = fminf(mn, sh.warp_min[w]);
      mx = fmaxf(mx, sh.warp_max[w]);
    }
    sh.block_min = mn;
    sh.block_max = mx;
  }
}

// The row's min / max from the cluster's blocks (lanes 0..c-1 read one block each); every warp
// computes the same values, so every thread of the cluster agrees on lo and scale.
__device__ __forceinline__ void row_range(cg::cluster_group& cluster, ClusterShared& sh, int c, float& lo,
                                          float& scale) {
  const int lane = threadIdx.x & 31;
  float mn = __int_as_float(0x7f800000);
  float mx = __int_as_float(0xff800000);
  if (lane < c) {
    const ClusterShared* other = cluster.map_shared_rank(&sh, lane);
    mn = other->block_min;
    mx = other->block_max;
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    mn = fminf(mn, __shfl_xor_sync(0xffffffffu, mn, off));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
  }
  lo = mn;
  // hi == lo (or no finite score): one bin; hi - lo overflowing to inf gives scale 0: one bin.
  scale = mx > mn ? __fdiv_rn(static_cast<float>(kBins), __fsub_rn(mx, mn)) : 0.f;
}

__device__ __forceinline__ unsigned lane_of(uint4 v, int j) {  // bin 2047 - 4t - j is component 3 - j
  return j == 0 ? v.w : (j == 1 ? v.z : (j == 2 ? v.y : v.x));
}

// Step 3's combine: the threshold bin and this block's slot base in every bin >= tb, from the c
// histograms. Thread t holds the descending positions 4t..4t+3 (bins 2047-4t .. 2044-4t).
__device__ __forceinline__ void combine_histograms(cg::cluster_group& cluster, ClusterShared& sh,
                                                   typename Scan::TempStorage& scan, int c, int r) {
  const int tid = threadIdx.x;
  const int first = kBins - 4 - 4 * tid;  // the lowest of this thread's 4 bins
  unsigned total[kItems] = {0u, 0u, 0u, 0u};
  unsigned before[kItems] = {0u, 0u, 0u, 0u};
  uint4 h[kMaxCluster];  // every block's 4 bins, the loads all in flight before the sums
#pragma unroll
  for (int q = 0; q < kMaxCluster; ++q)
    h[q] = q < c ? *reinterpret_cast<const uint4*>(cluster.map_shared_rank(sh.hist, q) + first) : uint4{};
#pragma unroll
  for (int q = 0; q < kMaxCluster; ++q) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      total[j] += lane_of(h[q], j);
      if (q < r) before[j] += lane_of(h[q], j);
    }
  }
  unsigned at_or_above[kItems];
  Scan(scan).InclusiveSum(total, at_or_above);
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int bin = kBins - 1 - (kItems * tid + j);
    const unsigned above = at_or_above[j] - total[j];
    sh.cursor[bin] = above + before[j];
    if (at_or_above[j] >= static_cast<unsigned>(kTopK) && above < static_cast<unsigned>(kTopK)) {
      sh.tbin = bin;
      sh.above = static_cast<int>(above);
      sh.cand_count = static_cast<int>(total[j]);
      sh.tb_base = before[j];
    }
  }
}

// Step 4 (block 0): `need` of tb's cand keys into out_row[above, above + need), exactly.
__device__ void choose_in_threshold_bin(ClusterShared& sh, typename Scan::TempStorage& scan, const float* row,
                                        int n, float lo, float scale, const int32_t* __restrict__ table_row,
                                        int32_t* __restrict__ out_row) {
  const int tid = threadIdx.x;
  const int tb = sh.tbin;
  const int above = sh.above;
  const int cand = sh.cand_count;
  const int need = kTopK - above;
  const bool use_list = cand <= kListMax;
  if (use_list && cand <= kRankDirect) {  // block-uniform
    if (tid < cand) {
      const uint32_t key = sh.list_key[tid];
      int rank = 0;
      for (int m = 0; m < cand; ++m) {
        const uint32_t km = sh.list_key[m];
        rank += (km > key || (km == key && m < tid)) ? 1 : 0;
      }
      if (rank < need) out_row[above + rank] = global_index(table_row, sh.list_pos[tid]);
    }
    return;
  }
  for (int i = tid; i < kBins; i += kClusterThreads) sh.hist[i] = 0;
  if (tid == 0) {
    sh.prefix = 0;
    sh.remaining = need;
    sh.above_slots = 0;
    sh.equal_slots = 0;
  }
  __syncthreads();
  auto for_each_cand = [&](auto&& f) {  // every key of tb, in any order
    if (use_list) {
      for (int j = tid; j < cand; j += kClusterThreads) f(static_cast<int>(sh.list_pos[j]), sh.list_key[j]);
    } else {
      for (int i = tid; i < n; i += kClusterThreads) {
        const float x = __ldcg(row + i);
        if (range_bin(x, lo, scale) == tb) f(i, order_key(x));
      }
    }
  };
#pragma unroll 1
  for (int pass = 0; pass < 3; ++pass) {  // bits [31, 21), [21, 10), [10, 0)
    const int bits = pass == 2 ? 10 : 11;
    const int shift = pass == 0 ? 21 : (pass == 1 ? 10 : 0);
    const uint32_t digit_mask = (1u << bits) - 1u;
    const uint32_t high_mask = pass == 0 ? 0u : ~((digit_mask << shift) | ((1u << shift) - 1u));
    const uint32_t want = sh.prefix & high_mask;
    for_each_cand([&](int, uint32_t key) {
      if ((key & high_mask) == want) atomicAdd(&sh.hist[(key >> shift) & digit_mask], 1u);
    });
    __syncthreads();
    choose_digit<kClusterThreads, ClusterShared, Scan>(sh, scan, bits, shift);
  }
  const uint32_t threshold = sh.prefix;
  const int take_equal = sh.remaining;               // >= 1
  const int equal_base = above + need - take_equal;  // tb's keys above the threshold come first
  for_each_cand([&](int i, uint32_t key) {
    if (key > threshold) {
      out_row[above + atomicAdd(&sh.above_slots, 1)] = global_index(table_row, i);
    } else if (key == threshold) {
      const int e = atomicAdd(&sh.equal_slots, 1);
      if (e < take_equal) out_row[equal_base + e] = global_index(table_row, i);
    }
  });
}

// One cluster of C blocks per request (grid: batch * C blocks, cluster (C, 1, 1)). kWait: launched
// as the score grid's programmatic dependent, so scores are read only after griddepcontrol.wait;
// rows of at most kTopK tokens need no scores and are written before it.
template <bool kWait>
__global__ void __launch_bounds__(kClusterThreads, 2)
    cluster_select_kernel(const float* scores, const int32_t* __restrict__ seq_lens,
                          const int32_t* __restrict__ block_table, int max_pages, int slice_smem_keys,
                          int32_t* __restrict__ out) {
  __shared__ ClusterShared sh;
  __shared__ typename Scan::TempStorage scan;
  extern __shared__ float4 dyn_smem[];
  cg::cluster_group cluster = cg::this_cluster();
  const int c = static_cast<int>(cluster.num_blocks());
  const int r = static_cast<int>(cluster.block_rank());
  const int b = static_cast<int>(blockIdx.x) / c;
  const int tid = threadIdx.x;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int n = static_cast<int>(clamped_len(seq_lens, b, capacity));
  const int32_t* table_row = block_table + int64_t{b} * max_pages;
  int32_t* out_row = out + int64_t{b} * kTopK;
  if (n <= kTopK) {  // every token is selected (cluster-uniform: no barrier is left waiting)
    write_short_row(table_row, n, out_row, r * kClusterThreads + tid, c * kClusterThreads);
    return;
  }
  for (int i = tid; i < kBins; i += kClusterThreads) sh.hist[i] = 0;
  if (tid == 0) sh.listed = 0;
  if constexpr (kWait) asm volatile("griddepcontrol.wait;\n" ::: "memory");
  const float* row = scores + int64_t{b} * capacity;
  const int s = slice_keys(n, c);
  const int begin = r * s < n ? r * s : n;
  const int end = begin + s < n ? begin + s : n;
  float* sx = reinterpret_cast<float*>(dyn_smem);
  const bool in_smem = s <= slice_smem_keys;
  load_slice(sh, sx, in_smem, row, begin, end);
  cluster.sync();  // 1: block min / max and the zeroed histograms are visible cluster-wide

  float lo;
  float scale;
  row_range(cluster, sh, c, lo, scale);
  auto value = [&](int i) -> float { return in_smem ? sx[i - begin] : __ldcg(row + i); };
  for (int i = begin + tid; i < end; i += kClusterThreads)
    atomicAdd(&sh.hist[range_bin(value(i), lo, scale)], 1u);
  cluster.sync();  // 2: every histogram is complete

  combine_histograms(cluster, sh, scan, c, r);
  __syncthreads();
  const int tb = sh.tbin;
  const int above = sh.above;
  const int cand = sh.cand_count;
  const bool take_all = cand == kTopK - above;
  const bool use_list = cand <= kListMax;
  ClusterShared* lead = cluster.map_shared_rank(&sh, 0);
  for (int i = begin + tid; i < end; i += kClusterThreads) {
    const float x = value(i);
    const int d = range_bin(x, lo, scale);
    if (d > tb || (d == tb && take_all)) {
      out_row[atomicAdd(&sh.cursor[d], 1u)] = global_index(table_row, i);
    } else if (d == tb && use_list) {
      const unsigned j = sh.tb_base + atomicAdd(&sh.listed, 1u);  // [0, cand)
      lead->list_pos[j] = static_cast<uint32_t>(i);
      lead->list_key[j] = order_key(x);
    }
  }
  cluster.sync();  // 3: block 0's list is complete; no block reads another's memory after this
  if (r != 0 || take_all) return;
  choose_in_threshold_bin(sh, scan, row, n, lo, scale, table_row, out_row);
}

}  // namespace dsa_cluster_select
