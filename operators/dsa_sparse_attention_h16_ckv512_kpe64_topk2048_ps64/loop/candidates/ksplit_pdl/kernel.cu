// ksplit_pdl: tc_ksplit (promoted in loop round 4; its notes are in tc_ksplit/kernel.cu) with the
// combine kernel launched as the split grid's programmatic dependent (PDL):
//  - every split block executes griddepcontrol.launch_dependents once its index list is
//    compacted and its first gathers are issued, so the combine grid is launched while the split
//    grid runs and its launch gap (~1-2 us between two kernels on the H200) overlaps the split;
//  - the combine waits in griddepcontrol.wait (the split grid's completion and the visibility of
//    its writes) before its first load; without the attribute (a refused launch falls back to an
//    ordinary one) the wait is a no-op.
// Why: on the loop's set tc_ldsm_pdl (tc_ldsm + this PDL launch) took 13.3 us against tc_ksplit's
// 13.8, although tc_ldsm alone lost to tc_ksplit; the PDL part is what tc_ksplit lacks.
// Expected: ~0.5-1.5 us below tc_ksplit at every T (T1 P317 10.5 -> ~9.5 us, T7 P4096 16.9 -> ~16).
// Numerics: tc_ksplit's, unchanged.
#include "sparse_tc_ksplit_run.cuh"

int dsa_sparse_attention_ksplit_pdl(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                    const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                    DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  return dsa_tc_ksplit::run<true>(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse,
                                  stream);
}
