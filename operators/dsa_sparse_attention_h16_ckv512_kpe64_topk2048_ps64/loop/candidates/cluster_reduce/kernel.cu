// cluster_reduce: ksplit_pdl (promoted in loop round 5) with the splits of a token merged in
// thread-block clusters of 8 before the combine (sparse_tc_ksplit.cuh, cluster_reduce_partials):
//  - the split grid launches as clusters of 8 consecutive splits of one token (a token's splits
//    padded with empty ones to a multiple of 8: 2048-entry lists give 64 or 32 already);
//  - after its tiles, each split block puts its unnormalised O [16 x 512] (f32, 32 KB) into its
//    idle tile buffers, and each block of the cluster merges 64 of the 512 dims over the 8 blocks
//    through distributed shared memory (max-rescaled as the combine does), so a cluster writes one
//    partial instead of 8;
//  - the combine (unchanged, PDL as in ksplit_pdl) then reads 4-8 partials a token, not 32-64.
// Why: on the H200 (bench/results/h200-loop/2026-12-04b/call2, profile.md) the combine takes
// 3.5-5.4 us of a 10-17 us call, waiting on loads (long_scoreboard) of 2 MB of partials a token,
// as many bytes as the attention's own gather (2.4 MB a token), which the split grid writes first.
// Merging in the cluster cuts those writes and reads 8x (T1: 2 MB -> 256 KB).
// Expected: ~1.5-3 us less a call at every T (mean 13.0 -> ~11 us).
// Numerics: ksplit_pdl's, the 64 partials merged in two levels (8 x 8) instead of one.
#include "sparse_tc_ksplit_run.cuh"

int dsa_sparse_attention_cluster_reduce(const DLTensor* q_nope, const DLTensor* q_pe,
                                        const DLTensor* ckv_cache, const DLTensor* kpe_cache,
                                        const DLTensor* sparse_indices, float sm_scale, DLTensor* output,
                                        DLTensor* lse, kh_stream_t stream) {
  return dsa_tc_ksplit::run<true, true>(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output,
                                        lse, stream);
}
