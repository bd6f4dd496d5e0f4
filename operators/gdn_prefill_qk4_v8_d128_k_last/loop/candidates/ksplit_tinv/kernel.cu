// gdn_prefill ksplit_tinv: ksplit_rows16 with the preparation's triangular solve on the
// tensor cores (gdn_chunk_prep_tinv.cuh).
//
// Why: ncu of the preparation on one sequence of 8192 tokens: ~100 us, issue-bound, FFMA 42%
// of its instructions (a column of X a thread, 2016 dependent FMAs each); on mid-size batches
// it is a third to a half of the call (chunk_check: 28 of 72 us on 1056 tokens, 75 of 155 us on
// 2548). T = (I + A)^-1 once per chunk in 16 x 16 tiles, then [W | U^] = T R by mma.
// Expected: the preparation 3-5x faster; the call 1.2-1.5x faster on mid-size batches.

#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"
#include "gdn_chunk_prep_tinv.cuh"

void gdn_prefill_ksplit_tinv(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                             const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                             const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                             DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep_tinv, true>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream);
}
