// gdn_prefill ksplit4one_pdl24: ksplit4_pdl24's four-way split of the state's K columns with one code
// path for the group's four warps (gdn_chunk_pass_group4.cuh), where ksplit4_pdl24 ran four copies.
//
// Why: ksplit4_pdl24 was 1.6x slower than ksplit_vecpdl24 on one 8192-token sequence (H100: pass 417
// against 236 us) though each warp does half the mma; its block runs four template copies of the
// chunk step (53 KB of code), each warp of the block a different one. Expected: if the copies were
// the cost, faster than ksplit_vecpdl24 on calls of 1-4 chunked sequences; the rest unchanged.
#include <kharness/kernel.h>

#include "gdn_chunk_pass_group4.cuh"
#include "gdn_chunk_prep_tinv.cuh"

void gdn_prefill_ksplit4one_pdl24(const DLTensor* q, const DLTensor* k, const DLTensor* v,
                                  const DLTensor* state, const DLTensor* A_log, const DLTensor* a,
                                  const DLTensor* dt_bias, const DLTensor* b, const DLTensor* cu_seqlens,
                                  float scale, DLTensor* output, DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep_vec_pdl, true, 24, 128, true>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream, gdn_chunk_tc::group4::launch_for<true, false>);
}
