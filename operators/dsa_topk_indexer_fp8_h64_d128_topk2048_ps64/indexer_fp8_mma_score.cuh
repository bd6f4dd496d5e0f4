// fp8_mma's tensor-core scoring as the loop's indexer candidates run it (fp8_mma, pool_keep,
// scale_prefetch, fused_small directly; range_select, range_pdl through indexer_range_select.cuh;
// rank_select, rank_pdl, cluster_select through indexer_mma_score.cuh; mma_pipe shares its MMA
// helpers; their notes are in loop/candidates/*): scores of every token into a
// [batch, max_pages * 64] f32 buffer. kPdl: every block lets the selection grid launch at its
// start. kFirstPageEarly (rank_select's): the block-table entry of the first page is read before
// seq_len, so that the two loads overlap. kPrefetchScales (scale_prefetch's): each page's scales
// are prefetched into L2 two pages ahead.
#pragma once

#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <kharness/kernel.h>

#include "indexer_layout.h"

namespace dsa_fp8_mma_score {

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
static_assert(kIndexHeads == 64 && kIndexHeadDim == 128 && kPageTokens == 64,
              "fragment plan assumes this shape");

__device__ __forceinline__ void mma_f16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The two e4m3 values in the low 16 bits of `two` as an f16x2 register (low byte -> low half).
__device__ __forceinline__ uint32_t e4m3x2_to_f16x2(uint32_t two) {
  const __half2_raw h =
      __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(two & 0xFFFFu), __NV_E4M3);
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

// L2 prefetch (a hint: no register, no effect on results) of the 64 scale bytes of this warp's
// page quarter (tokens 16tq..16tq+15, bytes 8192 + 64tq .. +64: within one 128-byte line).
__device__ __forceinline__ void prefetch_scales_l2(const uint8_t* page, int tq) {
  asm volatile("prefetch.global.L2 [%0];\n" ::"l"(page + kScalesOffset + tq * kWarpTokens * 4));
}

// Scores pages [first, last) of request b (first < last <= ceil(seq_len / 64)) into
// scores[b * capacity + position]; every thread of the 256-thread block calls it. kFirstPageEarly:
// the first page's table entry is first_page, read by the caller.
template <bool kFirstPageEarly, bool kPrefetchScales>
__device__ __forceinline__ void score_pages(const uint8_t* __restrict__ q, const uint8_t* __restrict__ cache,
                                            const float* __restrict__ weights, int b,
                                            const int32_t* __restrict__ table_row, int32_t first_page,
                                            int64_t seq_len, int64_t first, int64_t last, int64_t capacity,
                                            float* __restrict__ scores, float (&half_sum)[2][kPageTokens]) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int hh = warp >> 2;
  const int tq = warp & 3;
  const int g = lane >> 2;
  const int t = lane & 3;

  // Each page's key bytes are loaded one iteration ahead (software pipelining; the first page's
  // before q's), so a warp keeps the next page's loads in flight while it multiplies this one.
  uint4 k[2][2];
  load_quarter(cache + int64_t{kFirstPageEarly ? first_page : table_row[first]} * kPageBytes, tq, g, t, k);
  if constexpr (kPrefetchScales) {
    prefetch_scales_l2(cache + int64_t{first_page} * kPageBytes, tq);
    if (first + 1 < last) prefetch_scales_l2(cache + int64_t{table_row[first + 1]} * kPageBytes, tq);
  }

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
    const int valid =
        static_cast<int>(seq_len - p * kPageTokens < kPageTokens ? seq_len - p * kPageTokens : kPageTokens);
    // Scales of token columns 2t and 2t+1 of each n-tile (only needed after the MMAs; with
    // kPrefetchScales an L2 hit, else a DRAM latency on every page: holding them in registers a
    // page ahead instead spilled).
    const uint8_t* page = cache + int64_t{table_row[p]} * kPageBytes;
    float2 sc[2];
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
      sc[nt] =
          __ldg(reinterpret_cast<const float2*>(page + kScalesOffset) + (tq * kWarpTokens + nt * 8) / 2 + t);
    uint4 kn[2][2];
    if (p + 1 < last) load_quarter(cache + int64_t{table_row[p + 1]} * kPageBytes, tq, g, t, kn);
    float v[2][2] = {{0.f, 0.f}, {0.f, 0.f}};  // [n-tile][column 2t / 2t+1]: this head half's sum
    if (tq * kWarpTokens < valid) {            // warp-uniform: skips a partial last page's empty quarters
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
          v0 +=
              fmaxf(acc[mt][0] * sc[nt].x, 0.f) * wgt[mt][0] + fmaxf(acc[mt][2] * sc[nt].x, 0.f) * wgt[mt][1];
          v1 +=
              fmaxf(acc[mt][1] * sc[nt].y, 0.f) * wgt[mt][0] + fmaxf(acc[mt][3] * sc[nt].y, 0.f) * wgt[mt][1];
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
    // The accumulators are dead here: the page after next's scales, into L2.
    if constexpr (kPrefetchScales) {
      if (p + 2 < last) prefetch_scales_l2(cache + int64_t{table_row[p + 2]} * kPageBytes, tq);
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

template <bool kPdl, bool kFirstPageEarly = false, bool kPrefetchScales = false>
__global__ void __launch_bounds__(kScoreWarps * 32, 2)
    mma_score_kernel(const uint8_t* __restrict__ q, const uint8_t* __restrict__ cache,
                     const float* __restrict__ weights, const int32_t* __restrict__ seq_lens,
                     const int32_t* __restrict__ block_table, int max_pages, int pages_per_block,
                     float* __restrict__ scores) {
  __shared__ float half_sum[2][kPageTokens];  // [buffer][token]: heads 32..63's partial scores
  // PDL: let the selection grid launch now (it waits for this grid's completion before reading).
  if constexpr (kPdl) asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  const int b = blockIdx.y;
  // kFirstPageEarly: first < max_pages by the grid, so the entry is inside the block table; it is
  // used only when first < pages.
  const int32_t first_page =
      kFirstPageEarly ? __ldg(block_table + int64_t{b} * max_pages + int64_t{blockIdx.x} * pages_per_block)
                      : 0;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t seq_len = clamped_len(seq_lens, b, capacity);
  if (seq_len <= kTopK) return;  // every token is selected: no scores needed (block-uniform)
  const int64_t pages = (seq_len + kPageTokens - 1) / kPageTokens;
  const int64_t first = int64_t{blockIdx.x} * pages_per_block;
  if (first >= pages) return;  // block-uniform
  const int64_t last = first + pages_per_block < pages ? first + pages_per_block : pages;
  score_pages<kFirstPageEarly, kPrefetchScales>(q, cache, weights, b, block_table + int64_t{b} * max_pages,
                                                first_page, seq_len, first, last, capacity, scores, half_sum);
}

// Pages a score block takes: about 264 blocks (2 per SM) over the batch's page slots, 1..8 pages
// each (fp8_mma's): B=1, P=512 gets 256 blocks of 2 pages; large batches amortise q's register
// load over 8 pages.
inline int score_pages_per_block(int batch, int max_pages) {
  const int64_t slots = int64_t{batch} * max_pages;
  int64_t ppb = (slots + 263) / 264;
  ppb = ppb < 1 ? 1 : (ppb > 8 ? 8 : ppb);
  return static_cast<int>(ppb);
}

// The scores of every request into a stream-ordered [batch, max_pages * 64] buffer that the caller
// frees after the selection, or nullptr when no row can be longer than kTopK (nothing to score).
template <bool kPdl, bool kFirstPageEarly = false, bool kPrefetchScales = false>
float* launch_mma_scores(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                         const DLTensor* weights, const DLTensor* seq_lens, const DLTensor* block_table,
                         cudaStream_t stream) {
  const int batch = static_cast<int>(q_index_fp8->shape[0]);
  const int max_pages = static_cast<int>(block_table->shape[1]);
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  // Rows of at most kTopK tokens need no scores: without a longer possible row, no scoring at all.
  if (capacity <= kTopK) return nullptr;
  float* scores = nullptr;
  cudaMallocAsync(reinterpret_cast<void**>(&scores), sizeof(float) * batch * capacity, stream);
  const int ppb = score_pages_per_block(batch, max_pages);
  const dim3 grid(static_cast<unsigned>((max_pages + ppb - 1) / ppb), static_cast<unsigned>(batch));
  mma_score_kernel<kPdl, kFirstPageEarly, kPrefetchScales><<<grid, kScoreWarps * 32, 0, stream>>>(
      static_cast<const uint8_t*>(q_index_fp8->data), static_cast<const uint8_t*>(k_index_cache_fp8->data),
      static_cast<const float*>(weights->data), static_cast<const int32_t*>(seq_lens->data),
      static_cast<const int32_t*>(block_table->data), max_pages, ppb, scores);
  return scores;
}

}  // namespace dsa_fp8_mma_score
