// range_pdl: range_select (fp8_mma's tensor-core scoring + a 3-sweep range-bin selection), plus
//  (1) Programmatic Dependent Launch: the selection kernel is launched with
//      cudaLaunchAttributeProgrammaticStreamSerialization and every score block executes
//      griddepcontrol.launch_dependents at its start, so the selection grid is launched while
//      the score kernel runs (its launch latency, ~2-4 us between two kernels on the H200 under
//      CUPTI, overlaps the scoring); select blocks wait in griddepcontrol.wait (full completion and
//      memory visibility of the score grid) before reading any score. Rows of <= 2048 tokens are
//      written before the wait. Without the attribute (launch error fallback) the wait is a no-op.
//  (2) a rank shortcut for the usual case of a short threshold bin (<= 160 keys): each key's rank
//      among them (key descending, list position breaking ties) is counted directly, and ranks
//      below `need` are written to their slots: one barrier instead of 3 radix passes (3 scans,
//      6 barriers, ~1 us). Longer threshold bins use range_select's radix refinement.
// Expected: ~1-3 us below range_select on every workload that scores (vs fp8_mma on the H200:
// B2 P71 20.3 -> ~5 us, B1 P210 33.0 -> ~6, B3 P320 42.2 -> ~8, B24 P176 40.1 -> ~14, B28 P405
// ~106 -> ~52); mean ~33.8 -> ~10-13 us.
//
// range_select's notes: range_select/kernel.cu. The code: the operator's indexer_fp8_mma_score.cuh
// and indexer_range_select.cuh (run<true>).
#include "indexer_range_select.cuh"

void dsa_topk_indexer_range_pdl(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                const DLTensor* weights, const DLTensor* seq_lens,
                                const DLTensor* block_table, DLTensor* topk_indices, kh_stream_t stream) {
  dsa_range_select::run<true>(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices,
                              stream);
}
