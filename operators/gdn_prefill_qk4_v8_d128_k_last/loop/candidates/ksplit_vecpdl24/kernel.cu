// gdn_prefill ksplit_vecpdl24: ksplit_vec24's preparation (each token's operand factor once,
// 16-byte shared accesses, W stored in 16-byte pieces) with ksplit_tinv24_pdl's launch (the pass
// as the preparation's programmatic dependent, waiting before its first scratch copy).
//
// Why: the two act on different parts of a chunked call (the preparation's blocks; the gap and
// the pass's prologue after the preparation's last wave), so they should add where both pay.
// Expected: below both parents on the chunked calls; lane8's calls unchanged.
#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"
#include "gdn_chunk_prep_tinv.cuh"

void gdn_prefill_ksplit_vecpdl24(const DLTensor* q, const DLTensor* k, const DLTensor* v,
                                 const DLTensor* state, const DLTensor* A_log, const DLTensor* a,
                                 const DLTensor* dt_bias, const DLTensor* b, const DLTensor* cu_seqlens,
                                 float scale, DLTensor* output, DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep_vec_pdl, true, 24, 128, true>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream);
}
