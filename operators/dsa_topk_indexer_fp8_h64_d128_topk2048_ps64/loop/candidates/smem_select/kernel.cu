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
// The code: the operator's indexer_baseline.cuh (score_kernel<true>) and indexer_radix_select.cuh.
#include "indexer_baseline.cuh"
#include "indexer_radix_select.cuh"

void dsa_topk_indexer_smem_select(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                  const DLTensor* weights, const DLTensor* seq_lens,
                                  const DLTensor* block_table, DLTensor* topk_indices, kh_stream_t stream) {
  const int batch = static_cast<int>(q_index_fp8->shape[0]);
  const int max_pages = static_cast<int>(block_table->shape[1]);
  if (batch == 0) return;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  float* scores = nullptr;
  // Rows of at most kTopK tokens need no scores: without a longer possible row, no scoring at all.
  if (capacity > kTopK) {
    using dsa_indexer::kScoreSmemBytes;
    using dsa_indexer::score_kernel;
    cudaMallocAsync(reinterpret_cast<void**>(&scores), sizeof(float) * batch * capacity, stream);
    cudaFuncSetAttribute(score_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, kScoreSmemBytes);
    const dim3 grid(static_cast<unsigned>((max_pages + PAGES_PER_BLOCK - 1) / PAGES_PER_BLOCK),
                    static_cast<unsigned>(batch));
    score_kernel<true><<<grid, SCORE_WARPS * 32, kScoreSmemBytes, stream>>>(
        static_cast<const uint8_t*>(q_index_fp8->data), static_cast<const uint8_t*>(k_index_cache_fp8->data),
        static_cast<const float*>(weights->data), static_cast<const int32_t*>(seq_lens->data),
        static_cast<const int32_t*>(block_table->data), max_pages, scores);
  }
  dsa_radix_select::prepare_select(max_pages);
  dsa_radix_select::launch_select(scores, seq_lens, block_table, batch, max_pages, topk_indices, stream);
  if (scores != nullptr) cudaFreeAsync(scores, stream);
}
