// grid_combine: ksplit_pdl's split blocks and its combine as one kernel per call. The split grid is
// a cooperative launch (at most 2 blocks an SM, one wave: all of them resident); after writing its
// partial, every block waits at a grid barrier and then combines (token, head, quarter) items,
// strided over the blocks. Where the blocks cannot all be resident (more tokens than the contest's
// 1-8) the call falls back to ksplit_pdl's two kernels.
// Why: the loop's notes (skill.md) put most of a 13 us call in fixed costs, the second launch and
// the wait between the two grids among them; PDL hid the combine's launch gap but the combine still
// starts only after the split grid has drained and its blocks are scheduled anew. A grid barrier
// hands over inside resident blocks.
// Expected: ~0.5-1.5 us below ksplit_pdl at every T if the barrier costs less than the hand-over
// between two grids; slower if the barrier (one atomic per block, spinning on L2) costs more.
// Numerics: ksplit_pdl's, unchanged (the same partials, the same combine arithmetic).
#include "sparse_tc_ksplit_run.cuh"

int dsa_sparse_attention_grid_combine(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                      const DLTensor* kpe_cache, const DLTensor* sparse_indices,
                                      float sm_scale, DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  return dsa_tc_ksplit::run_grid_combine(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output,
                                         lse, stream);
}
