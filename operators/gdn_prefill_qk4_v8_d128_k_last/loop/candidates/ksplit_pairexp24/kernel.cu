// gdn_prefill ksplit_pairexp24: ksplit_vecpdl24 whose pass takes the chunk's decay factors from shared
// memory, evaluated by each pair of warps at the start of its step (gdn_chunk_pass.cuh, kPairExps).
//
// Why: each warp of the pass evaluates exp(lg_t) and exp(lg_L - lg_t) for 16 tokens of each 8-token
// tile, 32 expf a lane a chunk (~8 instructions each), though they depend on the chunk alone.
// ksplit_exps24 evaluated them once a block from the next chunk's gates, loaded from global memory
// before the step and stored after it: 30% fewer instructions a step, but a pass 1.40x slower on one
// 8192-token sequence (H100). Here the pair's 64 lanes evaluate the 128 factors of the staged chunk
// (two expf each) at the start of the step, into the pair's row of shared memory; the pair's barrier
// before the decays makes them visible. No load stays in flight across the step. The same expf of the
// same floats: the same bits as ksplit_vecpdl24. Expected: faster on the chunked calls, the long
// sequences most; lane8's calls unchanged.
#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"
#include "gdn_chunk_prep_tinv.cuh"

void gdn_prefill_ksplit_pairexp24(const DLTensor* q, const DLTensor* k, const DLTensor* v,
                                  const DLTensor* state, const DLTensor* A_log, const DLTensor* a,
                                  const DLTensor* dt_bias, const DLTensor* b, const DLTensor* cu_seqlens,
                                  float scale, DLTensor* output, DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep_vec_pdl, true, 24, 128, true>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream,
      gdn_chunk_tc::launch_pass_for<2, true, true, false, true>);
}
