// gdn_prefill ksplit_tinv24: ksplit_tinv (lean pass, triangular solve on the tensor cores) with
// ksplit_lane24's dispatch: calls below a mean of 24 tokens a sequence, or of at most 128 tokens
// in all, go to lane8.
//
// Why: the loop of 2026-12-05 (third device session) promoted ksplit_tinv (1.215x over
// chunk_ksplit, robust-confirmed); ksplit_lean24, the same dispatch on the lean pass without the
// tensor-core solve, was the fastest at the gate (1.307x) and ran the 118-token, 13-sequence call
// in 17.8 us where ksplit_tinv took 30.6 us. The dispatch acts on short batches only, where the
// chunked path's fixed cost dominates; the solve acts on mid-size and long ones.
// Expected: ksplit_tinv's time on long batches, lane8's on short ones; faster than both parents.
#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"
#include "gdn_chunk_prep_tinv.cuh"

void gdn_prefill_ksplit_tinv24(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                               const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                               const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                               DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep_tinv, true, 24, 128>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream);
}
