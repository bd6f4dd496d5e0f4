// fused_small: rank_select (range_select's f16 mma.sync scoring + range-bin selection whose
// threshold bin is ranked directly), and for calls whose rows are all short (max_num_pages <= 128,
// <= 8192 keys: 63 of the 128 contest workloads, 21.5 us mean there; 3 of the 5 loop workloads)
// ONE fused kernel: the last score block of each request to finish (a per-request arrival counter, last-block-done)
// selects that request's top-k with its 256 threads from the scores left in L2.
//
// Why faster: on the H200 every call that scores costs ~15-20 us even for 3-6K tokens (B1 P56
// 19.6 us, B3 P99 20.1; B1 P32, which only writes -1 padding, 2.2 us); ncu splits B3 P99 into
// score 6.9 us + select 15.0 us. The fused path removes the second kernel's launch and
// kernel-boundary drain (~1-2 us), the select kernel's own dependent prologue (seq_len, then the
// row), the shared-memory reconfiguration between a 1.5 KB and a ~60-200 KB kernel, and lets each
// request select while the others still score; with 8 warps instead of 32 the selection's barriers
// and scans are cheaper, and its sweeps (<= 32 keys a thread for 8K keys) stay short. Rows longer
// than 8192 keys use rank_select's two kernels (a 256-thread selection over 32K keys would be
// ~4x slower than the 1024-thread one).
// rank_select's changes, on both paths: the threshold bin's keys (<= 256, the usual case ~10-100)
// are ranked directly (one thread per key, key descending, list position breaking ties: exact)
// instead of 3 radix passes with 3 block scans and ~9 barriers; the row's block table is staged in
// shared memory for the gather; one barrier less for the min/max; the score kernel reads its first
// table entry before seq_len is known; cudaFuncSetAttribute once per process; and scale_prefetch's
// L2 prefetch of each page's scales two pages ahead in the score loop (blocks of several pages).
// Expected (H200, range_select -> here): B1 P128 20.7 -> ~13 us, B8 P65 19.6 -> ~12, B26 P66
// 26.7 -> ~17, B16 P300 44.3 -> ~36, B31 P512 87.3 -> ~70 (rank_select's two kernels with the
// scale prefetch); mean over the 128 workloads 27.4 -> ~19 us (baseline 67.8).
// Accuracy: scoring as range_select (f16-widened e4m3, f32 accumulation); selection exact on the
// f32 scores, ties included.
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <kharness/kernel.h>

#include <cub/block/block_scan.cuh>

#include "indexer_layout.h"
#include "indexer_rank_select.cuh"

namespace {

using namespace dsa_rank_select;  // NOLINT(google-build-using-namespace): the shared selection

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

// L2 prefetch (a hint: no register, no effect on results) of the 64 scale bytes of this warp's
// page quarter (tokens 16tq..16tq+15, bytes 8192 + 64tq .. +64: within one 128-byte line).
__device__ __forceinline__ void prefetch_scales_l2(const uint8_t* page, int tq) {
  asm volatile("prefetch.global.L2 [%0];\n" ::"l"(page + kScalesOffset + tq * kWarpTokens * 4));
}

// Scores pages [first, last) of request b (first < last <= ceil(seq_len / 64)) into
// scores[b * capacity + position]; every thread of the 256-thread block calls it. The first page's
// table entry is passed in (read early by the caller).
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
  load_quarter(cache + int64_t{first_page} * kPageBytes, tq, g, t, k);
  prefetch_scales_l2(cache + int64_t{first_page} * kPageBytes, tq);
  if (first + 1 < last) prefetch_scales_l2(cache + int64_t{table_row[first + 1]} * kPageBytes, tq);

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
    // Scales of token columns 2t and 2t+1 of each n-tile (only needed after the MMAs). They were
    // prefetched into L2 two pages ahead (range_select fetched them from DRAM here, exposing a DRAM
    // latency on every page; holding them in registers a page ahead instead spilled).
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
    // The accumulators are dead here: the page after next's scales, into L2.
    if (p + 2 < last) prefetch_scales_l2(cache + int64_t{table_row[p + 2]} * kPageBytes, tq);
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
  score_pages(q, cache, weights, b, table_row, first_page, seq_len, first, last, capacity, scores, half_sum);
}

// Selection: indexer_rank_select.cuh (rank_select's, shared with its children).
// ---------------------------------------------------------------------------------------------
// One fused kernel for calls whose rows are all short (max_num_pages <= 128: <= 8192 keys): the
// score blocks of each request count their arrivals (last-block-done), and the last block of a
// request to finish its pages selects that request's top-k with its 256 threads, from the scores
// the request's blocks left in global memory (L2). No second kernel: no launch gap, no
// kernel-boundary drain, no reconfiguration of shared memory between kernels, and requests select
// while the other requests are still scoring.
// Memory ordering (the threadFenceReduction pattern): every thread fences its score stores
// (__threadfence) before the barrier; thread 0 then counts the block (atomicInc); the block that
// sees itself last fences again and reads the scores through L2 (ld.global.cg), never through the
// non-coherent path. atomicInc(counter, arrivals - 1) wraps the counter back to 0 on the last
// arrival, so each call starts from 0 (the counters are zero at module load; a stale count could
// only come from a call that never finished, and it heals itself on the next wrap).
// ---------------------------------------------------------------------------------------------
constexpr int kFusedThreads = kScoreWarps * 32;  // 256
constexpr int kFusedMaxKeys = 8192;              // rows up to 128 pages: 32 KB of dynamic shared memory
constexpr int kFusedCand = 1024;
constexpr int kFusedTablePages = kFusedMaxKeys / kPageTokens;  // 128
constexpr int kMaxFusedBatch = 64;
using SmallShared = SelectShared<kFusedThreads, kFusedCand, kFusedTablePages>;
using SmallScan = cub::BlockScan<unsigned, kFusedThreads, cub::BLOCK_SCAN_WARP_SCANS>;

__device__ unsigned g_row_arrivals[kMaxFusedBatch];

__global__ void __launch_bounds__(kFusedThreads, 2)
    fused_kernel(const uint8_t* __restrict__ q, const uint8_t* __restrict__ cache,
                 const float* __restrict__ weights, const int32_t* __restrict__ seq_lens,
                 const int32_t* __restrict__ block_table, int max_pages, int pages_per_block, float* scores,
                 int32_t* __restrict__ out) {
  __shared__ float half_sum[2][kPageTokens];  // [buffer][token]: heads 32..63's partial scores
  __shared__ typename SmallScan::TempStorage scan;
  __shared__ SmallShared sh;
  __shared__ int is_last;
  extern __shared__ float4 dyn_smem[];
  const int b = blockIdx.y;
  const int32_t* table_row = block_table + int64_t{b} * max_pages;
  const int64_t first = int64_t{blockIdx.x} * pages_per_block;
  const int32_t first_page = __ldg(table_row + first);  // first < max_pages by the grid (see mma_score_kernel)
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t seq_len = clamped_len(seq_lens, b, capacity);
  int32_t* out_row = out + int64_t{b} * kTopK;
  if (seq_len <= kTopK) {  // every token is selected: block 0 of the request writes the row (block-uniform)
    if (blockIdx.x == 0) write_short_row(table_row, static_cast<int>(seq_len), out_row, threadIdx.x, kFusedThreads);
    return;
  }
  const int64_t pages = (seq_len + kPageTokens - 1) / kPageTokens;
  if (first >= pages) return;  // block-uniform; such blocks are not counted
  const int64_t last = first + pages_per_block < pages ? first + pages_per_block : pages;
  score_pages(q, cache, weights, b, table_row, first_page, seq_len, first, last, capacity, scores, half_sum);

  __threadfence();  // this thread's score stores are visible device-wide before the block counts
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned arrivals = static_cast<unsigned>((pages + pages_per_block - 1) / pages_per_block);
    const unsigned before = atomicInc(&g_row_arrivals[b], arrivals - 1u);  // wraps to 0 on the last
    __threadfence();
    is_last = before == arrivals - 1u ? 1 : 0;
  }
  __syncthreads();
  if (is_last == 0) return;  // block-uniform
  select_row<kFusedThreads, kFusedCand, kFusedTablePages>(sh, scan, reinterpret_cast<float*>(dyn_smem), true,
                                                          scores + int64_t{b} * capacity, static_cast<int>(seq_len),
                                                          table_row, out_row);
}

// Dynamic shared memory of select_kernel for rows of `capacity` tokens (0 past the budget).
inline int select_smem_keys(int64_t capacity) {
  return capacity <= kMaxSmemKeys ? static_cast<int>(capacity) : 0;
}

// Host-side, once per process: keep the stream-ordered pool's memory mapped (range_select's), and
// allow select_kernel and fused_kernel their largest dynamic shared memory once instead of on every call.
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
    cudaFuncSetAttribute(fused_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(sizeof(float) * kFusedMaxKeys));
    return true;
  }();
  (void)done;
}

}  // namespace

void dsa_topk_indexer_fused_small(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
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
  // About 264 blocks (2 per SM) over the batch's page slots, 1..8 pages each (fp8_mma's).
  const int64_t slots = int64_t{batch} * max_pages;
  int64_t ppb = (slots + 263) / 264;
  ppb = ppb < 1 ? 1 : (ppb > 8 ? 8 : ppb);
  const dim3 grid(static_cast<unsigned>((max_pages + ppb - 1) / ppb), static_cast<unsigned>(batch));
  if (capacity > kTopK && capacity <= kFusedMaxKeys && batch <= kMaxFusedBatch) {  // short rows: one kernel
    cudaMallocAsync(reinterpret_cast<void**>(&scores), sizeof(float) * batch * capacity, stream);
    fused_kernel<<<grid, kFusedThreads, sizeof(float) * static_cast<size_t>(capacity), stream>>>(
        static_cast<const uint8_t*>(q_index_fp8->data), static_cast<const uint8_t*>(k_index_cache_fp8->data),
        static_cast<const float*>(weights->data), static_cast<const int32_t*>(seq_lens->data),
        static_cast<const int32_t*>(block_table->data), max_pages, static_cast<int>(ppb), scores,
        static_cast<int32_t*>(topk_indices->data));
    cudaFreeAsync(scores, stream);
    return;
  }
  // Rows of at most kTopK tokens need no scores: without a longer possible row, no scoring at all.
  if (capacity > kTopK) {
    cudaMallocAsync(reinterpret_cast<void**>(&scores), sizeof(float) * batch * capacity, stream);
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
