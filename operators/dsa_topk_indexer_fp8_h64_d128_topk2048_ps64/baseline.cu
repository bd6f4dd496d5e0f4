// CUDA baseline for dsa_topk_indexer_fp8_h64_d128_topk2048_ps64.
//  1. scores: a block per (request, PAGES_PER_BLOCK pages). It converts the request's
//     fp8 query to float in shared memory once, then per page loads the 8 KB of key
//     values with 16-byte loads (each page read once per request), dequantises them
//     with the token's scale into shared memory, and each warp scores WARP_TOKENS tokens
//     at a time: lane l owns heads l and l + 32, so the 64 head dot products run in
//     registers, then relu * weight and a shuffle reduction over the lanes sums the heads;
//  2. selection: a block per request; radix select (4 passes of 8-bit digits, the digit
//     found by a block-wide scan of the histogram) gives the threshold key, then one pass
//     scatters every key above it and the needed number of keys equal to it. The order
//     within a row is free, so no sort.
//
// kh:param SCORE_WARPS in {2,4,8}            warps per score block; they split a page's 64 tokens
// kh:param WARP_TOKENS in {4,8}              tokens a warp scores together (register tile)
// kh:param PAGES_PER_BLOCK in {1,2,4}        pages a score block handles, reusing its converted query
// kh:param SELECT_THREADS in {256,512,1024}  threads of a selection block
#include "indexer_baseline.cuh"

void dsa_topk_indexer_baseline(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                               const DLTensor* weights, const DLTensor* seq_lens, const DLTensor* block_table,
                               DLTensor* topk_indices, kh_stream_t stream) {
  dsa_indexer::run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices, stream);
}
