// rank_pdl: rank_select (promoted in loop round 3; its notes are in rank_select/kernel.cu) with the
// selection kernel launched as the score grid's programmatic dependent (PDL):
//  - every score block executes griddepcontrol.launch_dependents at its start, so the selection
//    grid is launched while the scoring runs and its launch gap (~1-3 us between two kernels on
//    the H200) overlaps it;
//  - a selection block writes a row of at most 2048 tokens (no scores needed) at once and waits in
//    griddepcontrol.wait (the score grid's completion and the visibility of its scores) before
//    reading any score; a refused PDL launch falls back to an ordinary one (the wait is a no-op).
// Why: rank_select's two kernels run back to back on every workload that scores, and the H200
// profile shows the gap between them; range_pdl tried the same on range_select, an earlier parent.
// Expected: ~1-2 us below rank_select on every workload that scores (mean 21.8 -> ~20 us).
// Accuracy: rank_select's, unchanged.
#include "indexer_mma_score.cuh"

void dsa_topk_indexer_rank_pdl(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                               const DLTensor* weights, const DLTensor* seq_lens, const DLTensor* block_table,
                               DLTensor* topk_indices, kh_stream_t stream) {
  dsa_mma_score::run<true>(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices,
                           stream);
}
