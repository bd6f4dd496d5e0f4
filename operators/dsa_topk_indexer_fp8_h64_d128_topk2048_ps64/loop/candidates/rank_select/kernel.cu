// rank_select: range_select (f16 mma.sync scoring + one block of 1024 threads per request selecting
// over 2048 bins spread on the row's [min, max]) with a shorter serial chain in the selection.
//
// Why faster: the H200 profile (bench/results/h200-loop/2026-12-04/call5) puts the selection
// kernel at 15-20 us per call whatever the row length (B3 P99, 6K-key rows: 15.0 us; B4 P301:
// 20.4; B25 P186: 18.7), i.e. ~13 us of fixed serial latency plus ~0.35 us per 1K keys, with one
// SM ~35% busy: a chain of ~900 dependent instructions and ~18 block-wide barriers per warp. Its
// refinement of the threshold bin (3 radix passes, each a histogram, a 1024-thread block scan and
// 3 barriers, plus the zeroing) is ~half of that chain, for a bin that holds ~10-100 keys. Here:
//  - the threshold bin's keys (<= 256 of them, the usual case) are ranked directly: each listed key
//    counts the keys above it (key descending, list position breaking ties), one thread per key,
//    no barrier, no scan; ranks below `need` go to slots A + rank (exact, ties included). Longer
//    bins (tie-heavy rows) keep range_select's radix refinement unchanged;
//  - the keys are listed with their order keys during the gather (no extra sweep);
//  - the row's block-table prefix is staged in shared memory in the load sweep, so the gather's
//    index computation is a shared-memory read instead of a dependent L2 load per key;
//  - every warp reduces the per-warp min/max itself (one barrier less); int32 loop indices;
//  - the score kernel reads its first page's table entry before seq_len is known (one dependent
//    global round trip less, ~0.5-1 us on a cold L2);
//  - cudaFuncSetAttribute once per process instead of on every call.
// Expected: ~3-5 us less on every workload that scores (fixed chain ~13 -> ~8 us): loop set
// B1 P128 20.7 -> ~16, B8 P65 19.6 -> ~15, B26 P66 26.7 -> ~22, B16 P300 44.3 -> ~40, B31 P512
// 87.3 -> ~83; mean 27.4 -> ~23 us (baseline 67.8).
// Accuracy: scoring as range_select (f16-widened e4m3, f32 accumulation); selection exact on the
// f32 scores.
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <kharness/kernel.h>

#include <cub/block/block_scan.cuh>

#include "indexer_layout.h"

namespace {

__device__ __forceinline__ int64_t clamped_len(const int32_t* seq_lens, int b, int64_t capacity) {
  const int64_t n = seq_lens[b];
  return n < 0 ? 0 : (n > capacity ? capacity : n);
}

// ---------------------------------------------------------------------------------------------
// Scoring on tensor cores: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, the fp8 bytes
// widened to f16 in registers (every e4m3 value is exact in f16; products are exact, the sums f32).
// (On sm_90a, mma.sync with e4m3 operands is not native: ptxas lowers it to the same f16 HMMA
// plus conversions, and hoisting those for q took 255 registers and spilled; only wgmma is native
// fp8 on Hopper. Doing the widening ourselves keeps q's f16 fragments at 64 registers.)
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type";
// g = lane >> 2, t = lane & 3):
//   A (16x16, row, f16x2 regs): a0 = row g, k 2t..2t+1; a1 = row g+8, k 2t..2t+1;
//                               a2 = row g, k 2t+8..+9; a3 = row g+8, k 2t+8..+9
//   B (16x8, col):              b0 = col g, k 2t..2t+1; b1 = col g, k 2t+8..+9
//   C (16x8, f32):              c0, c1 = row g, cols 2t, 2t+1; c2, c3 = row g+8, cols 2t, 2t+1
// The dot product does not care which real dimension a k index stands for, as long as A and B
// agree: lane (g, t) loads 32 bytes of its row (q head) / column (token) as two 16-byte loads,
// bytes [16t, 16t+16) and [64+16t, 64+16t+16) = fp8 words w0..w7; k-step s (0..7) uses word s,
// its bytes 0-1 (widened to f16x2) as the "k 2t" register and bytes 2-3 as the "k 2t+8"
// register, for A and B alike: each of the 128 dims is used exactly once per (head, token).
// One load instruction of a warp covers 8 tokens x 64 contiguous bytes (fully used sectors).
//
// Block: 8 warps. Warp w: head half hh = w / 4 (heads 32hh..32hh+31, two m-tiles), token quarter
// tq = w % 4 (tokens 16tq..16tq+15 of each page, two n-tiles): 2 x 2 x 8 = 32 MMAs per page.
// q[b]'s 32 heads live in registers as f16 A fragments (2 x 8 x 4 = 64 regs), built once per
// block. Per token column a lane holds heads g and g+8 of each m-tile: relu(acc * scale) * w
// summed in-thread, then over the 8 lane groups by xor-shuffles 4, 8, 16; the two head halves
// meet in shared memory (double-buffered, one __syncthreads per page).
// ---------------------------------------------------------------------------------------------
constexpr int kScoreWarps = 8;
constexpr int kWarpTokens = 16;
static_assert(kIndexHeads == 64 && kIndexHeadDim == 128 && kPageTokens == 64, "fragment plan assumes this shape");

__device__ __forceinline__ void mma_f16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The two e4m3 values in the low 16 bits of `two` as an f16x2 register (low byte -> low half).
__device__ __forceinline__ uint32_t e4m3x2_to_f16x2(uint32_t two) {
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(two & 0xFFFFu), __NV_E4M3);
  return static_cast<uint32_t>(h.x) | (static_cast<uint32_t>(h.y) << 16);
}

// Word w (0..7) of the 32 bytes lo (w0..w3) then hi (w4..w7); w is a compile-time constant after
// unrolling.
__device__ __forceinline__ uint32_t word_of(uint4 lo, uint4 hi, int w) {
  const uint4 v = w < 4 ? lo : hi;
  const int i = w & 3;
  return i == 0 ? v.x : (i == 1 ? v.y : (i == 2 ? v.z : v.w));
}

// A lane's share of one page quarter (tokens 16tq..16tq+15): 32 bytes of token column g of each
// n-tile (bytes [16t, 16t+16) and [64+16t, 64+16t+16)). The whole page is always allocated, so
// tokens past seq_len are loaded but never written.
__device__ __forceinline__ void load_quarter(const uint8_t* __restrict__ page, int tq, int g, int t,
                                             uint4 (&k)[2][2]) {
#pragma unroll
  for (int nt = 0; nt < 2; ++nt) {
    const uint8_t* tok = page + (tq * kWarpTokens + nt * 8 + g) * kIndexHeadDim;
    k[nt][0] = __ldg(reinterpret_cast<const uint4*>(tok + 16 * t));
    k[nt][1] = __ldg(reinterpret_cast<const uint4*>(tok + 64 + 16 * t));
  }
}

__global__ void __launch_bounds__(kScoreWarps * 32, 2)
    mma_score_kernel(const uint8_t* __restrict__ q, const uint8_t* __restrict__ cache,
                     const float* __restrict__ weights, const int32_t* __restrict__ seq_lens,
                     const int32_t* __restrict__ block_table, int max_pages, int pages_per_block,
                     float* __restrict__ scores) {
  __shared__ float half_sum[2][kPageTokens];  // [buffer][token]: heads 32..63's partial scores
  const int b = blockIdx.y;
  const int32_t* table_row = block_table + int64_t{b} * max_pages;
  const int64_t first = int64_t{blockIdx.x} * pages_per_block;
  // Read before seq_len is known, so that the two loads overlap (one dependent global round trip
  // less before the first page load): first < max_pages by the grid, so the entry is inside the
  // block table; it is used only when first < pages.
  const int32_t first_page = __ldg(table_row + first);
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t seq_len = clamped_len(seq_lens, b, capacity);
  if (seq_len <= kTopK) return;  // every token is selected: no scores needed (block-uniform)
  const int64_t pages = (seq_len + kPageTokens - 1) / kPageTokens;
  if (first >= pages) return;  // block-uniform
  const int64_t last = first + pages_per_block < pages ? first + pages_per_block : pages;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int hh = warp >> 2;
  const int tq = warp & 3;
  const int g = lane >> 2;
  const int t = lane & 3;

  // Each page's key bytes are loaded one iteration ahead (software pipelining; the first page's
  // before q's), so a warp keeps the next page's loads in flight while it multiplies this one.
  uint4 k[2][2];
  load_quarter(cache + int64_t{first_page} * kPageBytes, tq, g, t, k);

  // A fragments of this warp's 32 heads: a[mt][s][r], m-tile mt covers heads 32hh + 16mt + (0..15).
  uint32_t a[2][8][4];
  const uint8_t* qb = q + int64_t{b} * kIndexHeads * kIndexHeadDim;
#pragma unroll
  for (int mt = 0; mt < 2; ++mt) {
    const uint8_t* r0 = qb + (32 * hh + 16 * mt + g) * kIndexHeadDim;  // head row g of the m-tile
    const uint8_t* r1 = r0 + 8 * kIndexHeadDim;                        // head row g + 8
    const uint4 x0 = __ldg(reinterpret_cast<const uint4*>(r0 + 16 * t));
    const uint4 x1 = __ldg(reinterpret_cast<const uint4*>(r0 + 64 + 16 * t));
    const uint4 y0 = __ldg(reinterpret_cast<const uint4*>(r1 + 16 * t));
    const uint4 y1 = __ldg(reinterpret_cast<const uint4*>(r1 + 64 + 16 * t));
#pragma unroll
    for (int s = 0; s < 8; ++s) {
      const uint32_t wx = word_of(x0, x1, s);
      const uint32_t wy = word_of(y0, y1, s);
      a[mt][s][0] = e4m3x2_to_f16x2(wx);        // row g,   "k 2t..2t+1"
      a[mt][s][1] = e4m3x2_to_f16x2(wy);        // row g+8, "k 2t..2t+1"
      a[mt][s][2] = e4m3x2_to_f16x2(wx >> 16);  // row g,   "k 2t+8..2t+9"
      a[mt][s][3] = e4m3x2_to_f16x2(wy >> 16);  // row g+8, "k 2t+8..2t+9"
    }
  }
  float wgt[2][2];
#pragma unroll
  for (int mt = 0; mt < 2; ++mt) {
    wgt[mt][0] = __ldg(weights + b * kIndexHeads + 32 * hh + 16 * mt + g);
    wgt[mt][1] = __ldg(weights + b * kIndexHeads + 32 * hh + 16 * mt + g + 8);
  }

  for (int64_t p = first; p < last; ++p) {
    const int buf = static_cast<int>(p - first) & 1;
    const int valid = static_cast<int>(seq_len - p * kPageTokens < kPageTokens ? seq_len - p * kPageTokens
                                                                                : kPageTokens);
    // Scales of token columns 2t and 2t+1 of each n-tile (only needed after the MMAs).
    const uint8_t* page = cache + int64_t{table_row[p]} * kPageBytes;
    float2 sc[2];
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
      sc[nt] = __ldg(reinterpret_cast<const float2*>(page + kScalesOffset) + (tq * kWarpTokens + nt * 8) / 2 + t);
    uint4 kn[2][2];
    if (p + 1 < last) load_quarter(cache + int64_t{table_row[p + 1]} * kPageBytes, tq, g, t, kn);
    float v[2][2] = {{0.f, 0.f}, {0.f, 0.f}};  // [n-tile][column 2t / 2t+1]: this head half's sum
    if (tq * kWarpTokens < valid) {  // warp-uniform: skips a partial last page's empty quarters
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        float acc[2][4];
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
          for (int r = 0; r < 4; ++r) acc[mt][r] = 0.f;
#pragma unroll
        for (int s = 0; s < 8; ++s) {
          const uint32_t w = word_of(k[nt][0], k[nt][1], s);
          const uint32_t b0 = e4m3x2_to_f16x2(w);        // "k 2t..2t+1"
          const uint32_t b1 = e4m3x2_to_f16x2(w >> 16);  // "k 2t+8..2t+9"
#pragma unroll
          for (int mt = 0; mt < 2; ++mt) mma_f16(acc[mt], a[mt][s], b0, b1);
        }
        float v0 = 0.f;
        float v1 = 0.f;
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
          v0 += fmaxf(acc[mt][0] * sc[nt].x, 0.f) * wgt[mt][0] + fmaxf(acc[mt][2] * sc[nt].x, 0.f) * wgt[mt][1];
          v1 += fmaxf(acc[mt][1] * sc[nt].y, 0.f) * wgt[mt][0] + fmaxf(acc[mt][3] * sc[nt].y, 0.f) * wgt[mt][1];
        }
#pragma unroll
        for (int off = 4; off < 32; off <<= 1) {
          v0 += __shfl_xor_sync(0xffffffffu, v0, off);
          v1 += __shfl_xor_sync(0xffffffffu, v1, off);
        }
        v[nt][0] = v0;
        v[nt][1] = v1;
      }
    }
    if (p + 1 < last) {
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        k[nt][0] = kn[nt][0];
        k[nt][1] = kn[nt][1];
      }
    }
    if (hh == 1 && g == 0) {
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const int col = tq * kWarpTokens + nt * 8 + 2 * t;
        half_sum[buf][col] = v[nt][0];
        half_sum[buf][col + 1] = v[nt][1];
      }
    }
    // Heads 32..63 are in half_sum[buf]; the next write of this buffer (two pages on) comes after
    // the next page's barrier, which every reader of this page has passed.
    __syncthreads();
    if (hh == 0 && g == 0) {
      float* out = scores + int64_t{b} * capacity + p * kPageTokens;
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const int col = tq * kWarpTokens + nt * 8 + 2 * t;
        if (col < valid) out[col] = v[nt][0] + half_sum[buf][col];
        if (col + 1 < valid) out[col + 1] = v[nt][1] + half_sum[buf][col + 1];
      }
    }
  }
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
  unsigned hist[kBins];      // range-bin histogram, then the radix histograms of the refinement
  unsigned cursor[kBins];    // next output slot of each range bin >= tb
  uint32_t cand[kCand];      // row positions of tb's keys
  uint32_t cand_key[kRank];  // their order-preserving keys (the first kRank of them)
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
__device__ void select_row(SelectShared<kThreads, kCand, kTablePages>& sh,
                           typename cub::BlockScan<unsigned, kThreads, cub::BLOCK_SCAN_WARP_SCANS>::TempStorage& scan,
                           float* sx, bool in_smem, const float* row, int n, const int32_t* __restrict__ table_row,
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
    return table_in_smem ? static_cast<int32_t>(int64_t{sh.table[i / kPageTokens]} * kPageTokens + i % kPageTokens)
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

__global__ void __launch_bounds__(kSelectThreads)
    select_kernel(const float* scores, const int32_t* __restrict__ seq_lens,
                  const int32_t* __restrict__ block_table, int max_pages, int smem_keys,
                  int32_t* __restrict__ out) {
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
  select_row<kSelectThreads, kBigCand, kBigTablePages>(sh, scan, reinterpret_cast<float*>(dyn_smem), n <= smem_keys,
                                                        scores + int64_t{b} * capacity, n, table_row, out_row);
}

// Dynamic shared memory of select_kernel for rows of `capacity` tokens (0 past the budget).
inline int select_smem_keys(int64_t capacity) {
  return capacity <= kMaxSmemKeys ? static_cast<int>(capacity) : 0;
}

// Host-side, once per process: keep the stream-ordered pool's memory mapped (range_select's), and
// allow select_kernel its largest dynamic shared memory once instead of on every call.
void prepare_once() {
  static const bool done = [] {
    int device = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      uint64_t keep = UINT64_MAX;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    cudaFuncSetAttribute(select_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(sizeof(float) * kMaxSmemKeys));
    return true;
  }();
  (void)done;
}

}  // namespace

void dsa_topk_indexer_rank_select(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                  const DLTensor* weights, const DLTensor* seq_lens, const DLTensor* block_table,
                                  DLTensor* topk_indices, kh_stream_t stream) {
  const int batch = static_cast<int>(q_index_fp8->shape[0]);
  const int max_pages = static_cast<int>(block_table->shape[1]);
  if (batch == 0) return;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int smem_keys = select_smem_keys(capacity);
  const size_t smem_bytes = sizeof(float) * static_cast<size_t>(smem_keys);
  prepare_once();
  float* scores = nullptr;
  // Rows of at most kTopK tokens need no scores: without a longer possible row, no scoring at all.
  if (capacity > kTopK) {
    cudaMallocAsync(reinterpret_cast<void**>(&scores), sizeof(float) * batch * capacity, stream);
    // About 264 blocks (2 per SM) over the batch's page slots, 1..8 pages each (fp8_mma's).
    const int64_t slots = int64_t{batch} * max_pages;
    int64_t ppb = (slots + 263) / 264;
    ppb = ppb < 1 ? 1 : (ppb > 8 ? 8 : ppb);
    const dim3 grid(static_cast<unsigned>((max_pages + ppb - 1) / ppb), static_cast<unsigned>(batch));
    mma_score_kernel<<<grid, kScoreWarps * 32, 0, stream>>>(
        static_cast<const uint8_t*>(q_index_fp8->data), static_cast<const uint8_t*>(k_index_cache_fp8->data),
        static_cast<const float*>(weights->data), static_cast<const int32_t*>(seq_lens->data),
        static_cast<const int32_t*>(block_table->data), max_pages, static_cast<int>(ppb), scores);
  }
  select_kernel<<<batch, kSelectThreads, smem_bytes, stream>>>(
      scores, static_cast<const int32_t*>(seq_lens->data), static_cast<const int32_t*>(block_table->data), max_pages,
      smem_keys, static_cast<int32_t*>(topk_indices->data));
  if (scores != nullptr) cudaFreeAsync(scores, stream);
}
