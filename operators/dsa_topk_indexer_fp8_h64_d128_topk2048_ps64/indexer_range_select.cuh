// The selection and the call of the loop's indexer candidates range_select and range_pdl
// (loop/candidates/*; their notes are there): one block per request, 3 sweeps over range bins,
// an exact radix refinement of the threshold bin. run<false> is range_select as the loop measured
// it; run<true> is range_pdl: the selection as the score grid's programmatic dependent, and a
// short threshold bin ranked directly. Their scoring: indexer_fp8_mma_score.cuh. (rank_select,
// their successor, has indexer_rank_select.cuh and indexer_mma_score.cuh.)
#pragma once

#include <cub/block/block_scan.cuh>

#include "indexer_fp8_mma_score.cuh"
#include "indexer_pool_keep.h"

namespace dsa_range_select {

using namespace dsa_fp8_mma_score;  // NOLINT(google-build-using-namespace): the shared scoring

// ---------------------------------------------------------------------------------------------
// Selection: one block of 1024 threads per request, three sweeps over the row instead of fp8_mma's
// five, and no crowded atomics.
//  1. load: the row's scores (float4, L2-only loads) into shared memory, with the row's min/max;
//  2. histogram: 2048 "range bins" spread evenly over [min, max] (bin = floor((x - lo) * scale),
//     clamped; round-to-nearest subtract and multiply are monotone, so the bin is a monotone
//     function of the score and equal scores share a bin). fp8_mma's first radix digit (sign,
//     exponent, 2 mantissa bits) put a whole row into ~30 crowded bins, so 1024 threads serialised
//     on a few shared-memory addresses; here a hot bin holds ~0.2% of the row;
//  3. a block scan finds the threshold bin tb (A = keys in bins above it < 2048 <= A + count[tb])
//     and each bin's first output slot; a gather sweep writes every key of a bin above tb to its
//     bin's slot (a per-bin cursor: atomics spread like the histogram's) and lists tb's keys
//     (typically ~10-100 of them);
//  4. exact refinement among tb's keys: 3 radix passes (11/11/10 bits of the order-preserving
//     uint32 key) over the list, then keys above the threshold key plus exactly `take_equal`
//     keys equal to it (an atomic counter caps them). If tb holds every remaining slot, its keys
//     were written in step 3. If tb's list would overflow (kCandCap: e.g. all scores equal),
//     the refinement iterates the whole row filtered by bin == tb instead.
// Rows longer than the shared-memory budget (never the case up to 640 pages) read the scores
// from global memory (L2) on every sweep instead.
// ---------------------------------------------------------------------------------------------
constexpr int kSelectThreads = 1024;
constexpr int kMaxSmemKeys = 40 * 1024;  // 160 KB of dynamic shared memory; rows up to 640 pages
constexpr int kBins = 2048;
constexpr int kCandCap = 4096;
constexpr int kRankMax =
    160;  // with kPdl (range_pdl): threshold bins up to this many keys are ranked directly
static_assert(kRankMax <= kBins && kRankMax <= kSelectThreads,
              "ranks use hist as key storage, a thread per key");
static_assert(kBins == 2 * kSelectThreads, "the bin scan gives each thread two bins");

__device__ __forceinline__ uint32_t order_key(float x) {
  uint32_t bits = __float_as_uint(x);
  if (bits == 0x80000000u) bits = 0;  // -0 == +0
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

__device__ __forceinline__ int32_t global_index(const int32_t* table_row, int64_t pos) {
  return static_cast<int32_t>(int64_t{table_row[pos / kPageTokens]} * kPageTokens + pos % kPageTokens);
}

// Monotone non-decreasing in x for x >= lo (lo = the row's minimum), scale >= 0 (+inf allowed:
// then x == lo gives NaN -> bin 0, x > lo gives inf -> the last bin). Equal x give equal bins.
__device__ __forceinline__ int range_bin(float x, float lo, float scale) {
  const float f = __fmul_rn(__fsub_rn(x, lo), scale);
  if (!(f >= 1.f)) return 0;
  if (f >= static_cast<float>(kBins - 1)) return kBins - 1;
  return static_cast<int>(f);  // truncation == floor for f in [1, kBins - 1)
}

struct SelectShared {
  unsigned hist[kBins];     // range-bin histogram, then the radix histograms of the refinement
  unsigned cursor[kBins];   // next output slot of each range bin >= tb
  uint32_t cand[kCandCap];  // row positions of tb's keys
  float warp_min[kSelectThreads / 32];
  float warp_max[kSelectThreads / 32];
  float lo;
  float scale;
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
// sh.hist for the next pass. Every thread calls it. (fp8_mma's, unchanged.)
template <class Scan>
__device__ void choose_digit(SelectShared& sh, typename Scan::TempStorage& scan, int bits, int shift) {
  const int nb = 1 << bits;
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
  for (int i = threadIdx.x; i < kBins; i += kSelectThreads) sh.hist[i] = 0;
  __syncthreads();
}

template <bool kPdl>
__global__ void __launch_bounds__(kSelectThreads)
    select_kernel(const float* scores, const int32_t* __restrict__ seq_lens,
                  const int32_t* __restrict__ block_table, int max_pages, int smem_keys,
                  int32_t* __restrict__ out) {
  using Scan = cub::BlockScan<unsigned, kSelectThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ SelectShared sh;
  extern __shared__ float4 dyn_smem[];
  float* sx = reinterpret_cast<float*>(dyn_smem);

  const int b = blockIdx.x;
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t n = clamped_len(seq_lens, b, capacity);
  const int32_t* table_row = block_table + int64_t{b} * max_pages;
  int32_t* out_row = out + int64_t{b} * kTopK;
  if (n <= kTopK) {  // every token is selected
    for (int i = tid; i < kTopK; i += kSelectThreads) out_row[i] = i < n ? global_index(table_row, i) : -1;
    return;
  }
  const float* row = scores + int64_t{b} * capacity;
  const bool in_smem = n <= smem_keys;

  for (int i = tid; i < kBins; i += kSelectThreads) sh.hist[i] = 0;
  if (tid == 0) {
    sh.above_slots = 0;
    sh.equal_slots = 0;
  }
  // PDL: wait until the score grid has completed and its writes are visible (no-op without PDL).
  if constexpr (kPdl) asm volatile("griddepcontrol.wait;\n" ::: "memory");

  // Sweep 1: load (into shared memory when it fits) and the row's min / max. Rows start 256-byte
  // aligned (capacity is a multiple of 64 floats) and hold capacity >= round_up(n, 4) floats, so
  // float4 loads past n stay inside the row; those values (never written: garbage) are stored but
  // never read, and kept out of the min / max.
  float mn = __int_as_float(0x7f800000);  // +inf
  float mx = __int_as_float(0xff800000);  // -inf
  {
    const int64_t n4 = (n + 3) / 4;
    const float4* row4 = reinterpret_cast<const float4*>(row);
    float4* sx4 = reinterpret_cast<float4*>(sx);
    constexpr int kUnroll = 8;
    for (int64_t base = 0; base < n4; base += int64_t{kSelectThreads} * kUnroll) {
      float4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t idx = base + int64_t{u} * kSelectThreads + tid;
        if (idx < n4) v[u] = __ldcg(row4 + idx);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t idx = base + int64_t{u} * kSelectThreads + tid;
        if (idx < n4) {
          if (in_smem) sx4[idx] = v[u];
          const int64_t e = idx * 4;  // < n
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
  __syncthreads();  // also publishes the zeroed histogram and the shared-memory row
  if (warp == 0) {
    mn = sh.warp_min[lane];
    mx = sh.warp_max[lane];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
      mn = fminf(mn, __shfl_xor_sync(0xffffffffu, mn, off));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
    }
    if (lane == 0) {
      sh.lo = mn;
      // hi == lo (or no finite score): one bin; hi - lo overflowing to inf gives scale 0: one bin.
      sh.scale = mx > mn ? static_cast<float>(kBins) / (mx - mn) : 0.f;
    }
  }
  __syncthreads();
  const float lo = sh.lo;
  const float scale = sh.scale;
  auto value = [&](int64_t i) -> float { return in_smem ? sx[i] : __ldcg(row + i); };

  // Sweep 2: range-bin histogram.
  for (int64_t i = tid; i < n; i += kSelectThreads) atomicAdd(&sh.hist[range_bin(value(i), lo, scale)], 1u);
  __syncthreads();

  // Threshold bin: thread t holds descending positions 2t, 2t+1 (bins kBins-1-2t, kBins-2-2t).
  {
    unsigned count[2];
    unsigned at_or_above[2];
    int bin[2];
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      bin[j] = kBins - 1 - (2 * tid + j);
      count[j] = sh.hist[bin[j]];
    }
    Scan(scan).InclusiveSum(count, at_or_above);
#pragma unroll
    for (int j = 0; j < 2; ++j) {
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
  const bool use_list = cand <= kCandCap;

  // Sweep 3: gather the bins above tb; list (or, if it holds exactly `need` keys, write) tb's keys.
  for (int64_t i = tid; i < n; i += kSelectThreads) {
    const int d = range_bin(value(i), lo, scale);
    if (d >= tb) {
      const unsigned s = atomicAdd(&sh.cursor[d], 1u);  // [above_d, above_d + count_d)
      if (d > tb || take_all)
        out_row[s] = global_index(table_row, i);
      else if (use_list)
        sh.cand[s - static_cast<unsigned>(above_bins)] = static_cast<uint32_t>(i);
    }
  }
  if (take_all) return;  // block-uniform
  __syncthreads();       // the list is complete; everyone is done with the range histogram

  // range_pdl: a short threshold bin's keys are ranked among the list (key descending, list
  // position breaking ties: a strict total order, so the ranks are 0..cand-1, each once); ranks
  // below `need` take slots above_bins + rank.
  if constexpr (kPdl) {
    if (use_list && cand <= kRankMax) {  // block-uniform
      for (int j = tid; j < cand; j += kSelectThreads) sh.hist[j] = order_key(value(sh.cand[j]));
      __syncthreads();
      if (tid < cand) {
        const uint32_t key = sh.hist[tid];
        int rank = 0;
        for (int m = 0; m < cand; ++m) {
          const uint32_t km = sh.hist[m];
          rank += (km > key || (km == key && m < tid)) ? 1 : 0;
        }
        if (rank < need) out_row[above_bins + rank] = global_index(table_row, sh.cand[tid]);
      }
      return;
    }
  }
  for (int i = tid; i < kBins; i += kSelectThreads) sh.hist[i] = 0;
  if (tid == 0) {
    sh.prefix = 0;
    sh.remaining = need;
  }
  __syncthreads();

  // Every key of tb, in any order (no warp-collective operations inside f).
  auto for_each_cand = [&](auto&& f) {
    if (use_list) {
      for (int j = tid; j < cand; j += kSelectThreads) {
        const int64_t i = sh.cand[j];
        f(i, order_key(value(i)));
      }
    } else {
      for (int64_t i = tid; i < n; i += kSelectThreads) {
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
    for_each_cand([&](int64_t, uint32_t key) {
      if ((key & high_mask) == want) atomicAdd(&sh.hist[(key >> shift) & digit_mask], 1u);
    });
    __syncthreads();
    choose_digit<Scan>(sh, scan, bits, shift);
  }
  const uint32_t threshold = sh.prefix;
  const int take_equal = sh.remaining;                    // >= 1
  const int equal_base = above_bins + need - take_equal;  // tb's keys above the threshold: need - take_equal
  for_each_cand([&](int64_t i, uint32_t key) {
    if (key > threshold) {
      const int s = atomicAdd(&sh.above_slots, 1);
      out_row[above_bins + s] = global_index(table_row, i);
    } else if (key == threshold) {
      const int e = atomicAdd(&sh.equal_slots, 1);
      if (e < take_equal) out_row[equal_base + e] = global_index(table_row, i);
    }
  });
}

// Dynamic shared memory of select_kernel for rows of `capacity` tokens (0 past the budget).
inline int select_smem_keys(int64_t capacity) {
  return capacity <= kMaxSmemKeys ? static_cast<int>(capacity) : 0;
}

template <bool kPdl>
void run(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8, const DLTensor* weights,
         const DLTensor* seq_lens, const DLTensor* block_table, DLTensor* topk_indices, kh_stream_t stream) {
  const int batch = static_cast<int>(q_index_fp8->shape[0]);
  const int max_pages = static_cast<int>(block_table->shape[1]);
  if (batch == 0) return;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int smem_keys = select_smem_keys(capacity);
  const size_t smem_bytes = sizeof(float) * static_cast<size_t>(smem_keys);
  // Host-side work first, so that nothing but launches sits between the two kernels. Always set:
  // select_kernel has ~33 KB of static shared memory, so static + dynamic passes 48 KB early.
  cudaFuncSetAttribute(select_kernel<kPdl>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(smem_bytes));
  keep_pool_memory_mapped();
  float* scores =
      launch_mma_scores<kPdl>(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, stream);
  const int32_t* lens = static_cast<const int32_t*>(seq_lens->data);
  const int32_t* table = static_cast<const int32_t*>(block_table->data);
  int32_t* out = static_cast<int32_t*>(topk_indices->data);
  if constexpr (kPdl) {
    if (scores != nullptr) {  // a score kernel precedes: launch the selection as its programmatic dependent
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(static_cast<unsigned>(batch));
      config.blockDim = dim3(kSelectThreads);
      config.dynamicSmemBytes = smem_bytes;
      config.stream = stream;
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr[0].val.programmaticStreamSerializationAllowed = 1;
      config.attrs = attr;
      config.numAttrs = 1;
      const float* scores_c = scores;
      if (cudaLaunchKernelEx(&config, select_kernel<true>, scores_c, lens, table, max_pages, smem_keys,
                             out) == cudaSuccess) {
        cudaFreeAsync(scores, stream);
        return;
      }
      (void)cudaGetLastError();  // clear it; fall back to an ordinary launch
    }
  }
  select_kernel<kPdl>
      <<<batch, kSelectThreads, smem_bytes, stream>>>(scores, lens, table, max_pages, smem_keys, out);
  if (scores != nullptr) cudaFreeAsync(scores, stream);
}

}  // namespace dsa_range_select
