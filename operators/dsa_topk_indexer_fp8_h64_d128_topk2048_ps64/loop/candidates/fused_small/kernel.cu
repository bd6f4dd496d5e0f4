// fused_small: rank_select (range_select's f16 mma.sync scoring + range-bin selection whose
// threshold bin is ranked directly), and for calls whose rows are all short (max_num_pages <= 128,
// <= 8192 keys: 63 of the 128 contest workloads, 21.5 us mean there; 3 of the 5 loop workloads)
// ONE fused kernel: the last score block of each request to finish (a per-request arrival counter,
// last-block-done) selects that request's top-k with its 256 threads from the scores left in L2.
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
// The code: rank_select's host call and two kernels (the operator's indexer_mma_score.cuh,
// run<false, true>: with scale_prefetch's prefetch), and below the fused kernel, built from
// indexer_fp8_mma_score.cuh's score_pages and indexer_rank_select.cuh's select_row.
#include <cub/block/block_scan.cuh>

#include "indexer_fp8_mma_score.cuh"
#include "indexer_mma_score.cuh"
#include "indexer_rank_select.cuh"

namespace {

using namespace dsa_rank_select;    // NOLINT(google-build-using-namespace): the shared selection
using namespace dsa_fp8_mma_score;  // NOLINT(google-build-using-namespace): the shared scoring

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
  const int32_t first_page =
      __ldg(table_row + first);  // first < max_pages by the grid (see indexer_fp8_mma_score.cuh)
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t seq_len = dsa_rank_select::clamped_len(seq_lens, b, capacity);
  int32_t* out_row = out + int64_t{b} * kTopK;
  if (seq_len <= kTopK) {  // every token is selected: block 0 of the request writes the row (block-uniform)
    if (blockIdx.x == 0)
      write_short_row(table_row, static_cast<int>(seq_len), out_row, threadIdx.x, kFusedThreads);
    return;
  }
  const int64_t pages = (seq_len + kPageTokens - 1) / kPageTokens;
  if (first >= pages) return;  // block-uniform; such blocks are not counted
  const int64_t last = first + pages_per_block < pages ? first + pages_per_block : pages;
  score_pages<true, true>(q, cache, weights, b, table_row, first_page, seq_len, first, last, capacity, scores,
                          half_sum);

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
                                                          scores + int64_t{b} * capacity,
                                                          static_cast<int>(seq_len), table_row, out_row);
}

// Host-side, once per process: allow fused_kernel its largest dynamic shared memory.
void prepare_fused_once() {
  static const bool done = [] {
    cudaFuncSetAttribute(fused_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(sizeof(float) * kFusedMaxKeys));
    return true;
  }();
  (void)done;
}

}  // namespace

void dsa_topk_indexer_fused_small(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                  const DLTensor* weights, const DLTensor* seq_lens,
                                  const DLTensor* block_table, DLTensor* topk_indices, kh_stream_t stream) {
  const int batch = static_cast<int>(q_index_fp8->shape[0]);
  const int max_pages = static_cast<int>(block_table->shape[1]);
  if (batch == 0) return;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  if (capacity > kTopK && capacity <= kFusedMaxKeys && batch <= kMaxFusedBatch) {  // short rows: one kernel
    dsa_mma_score::prepare_once<false>();
    prepare_fused_once();
    const int ppb = score_pages_per_block(batch, max_pages);
    const dim3 grid(static_cast<unsigned>((max_pages + ppb - 1) / ppb), static_cast<unsigned>(batch));
    float* scores = nullptr;
    cudaMallocAsync(reinterpret_cast<void**>(&scores), sizeof(float) * batch * capacity, stream);
    fused_kernel<<<grid, kFusedThreads, sizeof(float) * static_cast<size_t>(capacity), stream>>>(
        static_cast<const uint8_t*>(q_index_fp8->data), static_cast<const uint8_t*>(k_index_cache_fp8->data),
        static_cast<const float*>(weights->data), static_cast<const int32_t*>(seq_lens->data),
        static_cast<const int32_t*>(block_table->data), max_pages, ppb, scores,
        static_cast<int32_t*>(topk_indices->data));
    cudaFreeAsync(scores, stream);
    return;
  }
  dsa_mma_score::run<false, true>(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table,
                                  topk_indices, stream);
}
