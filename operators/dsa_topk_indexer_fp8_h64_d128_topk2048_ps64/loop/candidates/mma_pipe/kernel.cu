// mma_pipe: fp8_mma's tensor-core scoring fed by a 4-stage cp.async shared-memory pipeline, + the
// shared-memory radix selection of smem_select. Two kernels, no host sync.
//
// Why faster than fp8_mma: fp8_mma loads each warp's B fragments straight from global memory one
// page ahead, so an SM (2 blocks of 8 warps, 128 registers) has ~17 KB of keys in flight; at
// ~1 us of latency that caps the key stream near 2 TB/s, and B28 P405 (~48 MB of keys) would take
// ~20-25 us of scoring. Here each block keeps up to 3 pages (25 KB) in flight through cp.async
// (16-byte copies, L1 bypassed, registers free: 108 instead of 128), ~50 KB per SM, which should
// approach the ~4 TB/s copy rate: B28 P405 scoring ~12-15 us. The two head-half warps of a token
// quarter no longer both fetch the same key bytes from L2/L1 either (one copy per block).
// Key rows are stored with a 16-byte-chunk XOR swizzle (chunk j of row r at j ^ 4*(r & 1)) so the
// 128-bit fragment reads are bank-conflict-free. MMA (mma.sync m16n8k16 f16 -> f32 on fp8 bytes
// widened in registers), fragment plan, head reduction and selection are fp8_mma's.
// Expected: B1 P32 ~5 us (baseline 23), B2 P93 ~8 us (33), B1 P282 ~9 us (48), B5 P311 ~10 us
// (63), B29 P134 ~11 us (104), B28 P405 ~18 us (263); mean ~9-11 us vs 68 us.
// Accuracy: e4m3 values are exact in f16, products exact in f32, f32 accumulation, then * scale.
// The code: the MMA helpers of the operator's indexer_fp8_mma_score.cuh (fragment plan there),
// the selection of indexer_radix_select.cuh, and below the pipelined score kernel.
#include "indexer_fp8_mma_score.cuh"
#include "indexer_radix_select.cuh"

namespace {

using dsa_fp8_mma_score::clamped_len;
using dsa_fp8_mma_score::e4m3x2_to_f16x2;
using dsa_fp8_mma_score::kScoreWarps;
using dsa_fp8_mma_score::kWarpTokens;
using dsa_fp8_mma_score::mma_f16;
using dsa_fp8_mma_score::word_of;

// Pipeline: each block streams its pages through kStages shared-memory stages with cp.async
// (16-byte copies, up to kStages - 1 pages in flight per block, ~25 KB, while it multiplies the
// oldest). Inside a stage the 64 token rows keep their 128 bytes, but the 16-byte chunk j of row r
// sits at chunk j ^ (4 * (r & 1)): a quarter-warp's 128-bit reads (token rows g, g+1, chunks t or
// 4+t) then cover all 32 banks once. The 256 scale bytes follow at byte 8192.
constexpr int kStages = 4;
constexpr int kStageBytes = static_cast<int>(kPageBytes);  // 8448
constexpr int kPageChunks = kStageBytes / 16;              // 528: 512 of values, 16 of scales

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Byte offset in a stage of 16-byte chunk j (0..7) of token row r.
__device__ __forceinline__ int swizzled(int r, int j) {
  return r * kIndexHeadDim + ((j ^ ((r & 1) << 2)) << 4);
}

// Every thread of the block copies its share of one page (8448 bytes) into `stage`.
__device__ __forceinline__ void issue_page(uint8_t* stage, const uint8_t* __restrict__ page) {
  for (int c = threadIdx.x; c < kPageChunks; c += kScoreWarps * 32) {
    const int dst = c < 512 ? swizzled(c >> 3, c & 7) : static_cast<int>(kScalesOffset) + (c - 512) * 16;
    cp_async16(stage + dst, page + 16 * c);
  }
}

__global__ void __launch_bounds__(kScoreWarps * 32, 2)
    mma_score_kernel(const uint8_t* __restrict__ q, const uint8_t* __restrict__ cache,
                     const float* __restrict__ weights, const int32_t* __restrict__ seq_lens,
                     const int32_t* __restrict__ block_table, int max_pages, int pages_per_block,
                     float* __restrict__ scores) {
  __shared__ __align__(128) uint8_t stages[kStages][kStageBytes];
  __shared__ float half_sum[2][kPageTokens];  // [buffer][token]: heads 32..63's partial scores
  const int b = blockIdx.y;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t seq_len = clamped_len(seq_lens, b, capacity);
  if (seq_len <= kTopK) return;  // every token is selected: no scores needed (block-uniform)
  const int64_t pages = (seq_len + kPageTokens - 1) / kPageTokens;
  const int64_t first = int64_t{blockIdx.x} * pages_per_block;
  if (first >= pages) return;  // block-uniform
  const int count =
      static_cast<int>((first + pages_per_block < pages ? first + pages_per_block : pages) - first);
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int hh = warp >> 2;
  const int tq = warp & 3;
  const int g = lane >> 2;
  const int t = lane & 3;
  const int32_t* table_row = block_table + int64_t{b} * max_pages + first;

  // Prologue: pages 0 .. kStages-2 of the block, one commit group each (empty past the end, so
  // that group i always holds page i).
#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) {
    if (i < count) issue_page(stages[i], cache + int64_t{table_row[i]} * kPageBytes);
    cp_async_commit();
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

  for (int i = 0; i < count; ++i) {
    // Groups committed so far hold pages 0 .. i + kStages - 2; at most kStages - 2 pending means
    // page i's copies (this thread's) are done; the barrier makes everyone's visible, and tells
    // that every warp has finished page i - 1, whose stage the next issue overwrites.
    cp_async_wait<kStages - 2>();
    __syncthreads();
    if (i + kStages - 1 < count)
      issue_page(stages[(i + kStages - 1) % kStages],
                 cache + int64_t{table_row[i + kStages - 1]} * kPageBytes);
    cp_async_commit();

    const uint8_t* st = stages[i % kStages];
    const int64_t p = first + i;
    const int valid =
        static_cast<int>(seq_len - p * kPageTokens < kPageTokens ? seq_len - p * kPageTokens : kPageTokens);
    const int buf = i & 1;
    float v[2][2] = {{0.f, 0.f}, {0.f, 0.f}};  // [n-tile][column 2t / 2t+1]: this head half's sum
    if (tq * kWarpTokens < valid) {            // warp-uniform: skips a partial last page's empty quarters
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const int r = tq * kWarpTokens + nt * 8 + g;  // token column g of the n-tile
        const uint4 klo = *reinterpret_cast<const uint4*>(st + swizzled(r, t));      // bytes [16t, 16t+16)
        const uint4 khi = *reinterpret_cast<const uint4*>(st + swizzled(r, 4 + t));  // bytes [64+16t, ...)
        // scales of token columns 2t and 2t+1 of the n-tile
        const float2 sc =
            *reinterpret_cast<const float2*>(st + kScalesOffset + 4 * (tq * kWarpTokens + nt * 8 + 2 * t));
        float acc[2][4];
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[mt][e] = 0.f;
#pragma unroll
        for (int s = 0; s < 8; ++s) {
          const uint32_t w = word_of(klo, khi, s);
          const uint32_t b0 = e4m3x2_to_f16x2(w);        // "k 2t..2t+1"
          const uint32_t b1 = e4m3x2_to_f16x2(w >> 16);  // "k 2t+8..2t+9"
#pragma unroll
          for (int mt = 0; mt < 2; ++mt) mma_f16(acc[mt], a[mt][s], b0, b1);
        }
        float v0 = 0.f;
        float v1 = 0.f;
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
          v0 += fmaxf(acc[mt][0] * sc.x, 0.f) * wgt[mt][0] + fmaxf(acc[mt][2] * sc.x, 0.f) * wgt[mt][1];
          v1 += fmaxf(acc[mt][1] * sc.y, 0.f) * wgt[mt][0] + fmaxf(acc[mt][3] * sc.y, 0.f) * wgt[mt][1];
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
    if (hh == 1 && g == 0) {
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const int col = tq * kWarpTokens + nt * 8 + 2 * t;
        half_sum[buf][col] = v[nt][0];
        half_sum[buf][col + 1] = v[nt][1];
      }
    }
    // Heads 32..63 are in half_sum[buf]; its next write (two pages on) comes after the next
    // page's first barrier, which every reader of this one has passed.
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
  cp_async_wait<0>();  // no copy outlives the block (the trailing groups are empty)
}

}  // namespace

void dsa_topk_indexer_mma_pipe(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
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
    const int ppb = dsa_fp8_mma_score::score_pages_per_block(batch, max_pages);
    const dim3 grid(static_cast<unsigned>((max_pages + ppb - 1) / ppb), static_cast<unsigned>(batch));
    mma_score_kernel<<<grid, kScoreWarps * 32, 0, stream>>>(
        static_cast<const uint8_t*>(q_index_fp8->data), static_cast<const uint8_t*>(k_index_cache_fp8->data),
        static_cast<const float*>(weights->data), static_cast<const int32_t*>(seq_lens->data),
        static_cast<const int32_t*>(block_table->data), max_pages, ppb, scores);
  }
  dsa_radix_select::prepare_select(max_pages);
  dsa_radix_select::launch_select(scores, seq_lens, block_table, batch, max_pages, topk_indices, stream);
  if (scores != nullptr) cudaFreeAsync(scores, stream);
}
