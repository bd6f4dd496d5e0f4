// gdn_prefill ksplit_tinv24_pdl: ksplit_tinv24 with the pass launched as the preparation's
// programmatic dependent (PDL). The preparation releases it at its first instruction; the pass
// reads its sequence's boundaries and initial state into registers, then waits for the
// preparation's completion (griddepcontrol.wait) before it copies anything from the scratch or
// writes an output. Same kernels otherwise, same lane8 dispatch.
//
// Why: on the chunked path a call is two dependent grids; the pass's launch gap and its prologue
// (cu_seqlens, the chunks before its sequence, 16 x 64 floats of state a warp) now sit on the
// critical path after the preparation's last block. With PDL they overlap the preparation's tail
// (its last wave), the next step the loop of 2026-12-05 named.
// Expected: ~1-3 us less on mid-size calls (15-320 us each), nothing on the calls lane8 takes.
#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"
#include "gdn_chunk_prep_tinv.cuh"

void gdn_prefill_ksplit_tinv24_pdl(const DLTensor* q, const DLTensor* k, const DLTensor* v,
                                   const DLTensor* state, const DLTensor* A_log, const DLTensor* a,
                                   const DLTensor* dt_bias, const DLTensor* b, const DLTensor* cu_seqlens,
                                   float scale, DLTensor* output, DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep_tinv_pdl, true, 24, 128, true>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream);
}
