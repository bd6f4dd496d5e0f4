// range_select: fp8_mma's tensor-core scoring, unchanged, + a selection with 3 sweeps over the row
// instead of 5 and no crowded shared-memory atomics. Two kernels, no host sync.
//
// Why faster: on the H200 fp8_mma's latency follows the longest request (~0.1 us per page of it,
// B1 P111 23.7 us -> B1 P210 33.0 us: ~1.5 us per 1K keys), i.e. its one-block-per-request
// selection. Its first radix digit (sign, 8 exponent bits, 2 mantissa bits) packs a row's scores
// into ~30 bins, so pass 0's shared atomics (even warp-aggregated with __match_any_sync) serialise
// on a few addresses, and the gather's slot counter is one address for all 32 warps. Here:
//  - the first histogram uses 2048 bins spread evenly over the row's [min, max] (found while the
//    row is loaded into shared memory): a hot bin holds ~0.2% of the row, atomics rarely collide;
//  - the threshold bin holds ~10-100 keys (0.2% of the row near the cut), so the exact radix
//    refinement (fp8_mma's 3 passes and tie handling) runs over that short list, not the row;
//  - bins above the threshold get their output slots from the bin scan (a cursor per bin), so
//    the gather's atomics are spread too.
// Per long row: load (~1 us for 32K scores at L2 speed), histogram and gather sweeps (~1 us
// each), refinement (~1 us of scans/barriers): ~4-5 us instead of ~1.5 us per 1K keys (B1 P210
// ~20 us, P512 ~48 us). With the pool fix below (~10 us off every workload that scores), expected
// vs fp8_mma's H200 numbers: B1 P32 2.1 -> 2.1, B2 P71 20.3 -> ~7, B1 P210 33.0 -> ~8, B3 P320
// 42.2 -> ~10, B15 P240 43.4 -> ~14, B31 P261 61.1 -> ~25, B28 P405 ~106 -> ~55; mean ~33.8 ->
// ~12-15 us (baseline 67.8).
// Also: cudaFuncSetAttribute now runs before the score launch (it sat between the two launches),
// and the default memory pool keeps its memory mapped (release threshold UINT64_MAX, as the
// dsa_sparse_attention baseline does): otherwise every call's cudaMallocAsync maps fresh memory
// after the harness's device sync and stalls the stream for tens of microseconds, which is likely
// most of fp8_mma's ~13-18 us "fixed" cost (B1 P32, which allocates nothing, takes 2.1 us).
// Accuracy: scoring as fp8_mma (f16-widened e4m3, f32 accumulation); selection exact on the f32
// scores (ties: exactly `take_equal` keys equal to the threshold key, capped by a counter).
// The code: the operator's indexer_fp8_mma_score.cuh and indexer_range_select.cuh (run<false>).
#include "indexer_range_select.cuh"

void dsa_topk_indexer_range_select(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                   const DLTensor* weights, const DLTensor* seq_lens,
                                   const DLTensor* block_table, DLTensor* topk_indices, kh_stream_t stream) {
  dsa_range_select::run<false>(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices,
                               stream);
}
