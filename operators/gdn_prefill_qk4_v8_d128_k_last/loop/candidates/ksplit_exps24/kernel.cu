// gdn_prefill ksplit_exps24: ksplit_vecpdl24 whose pass takes the chunk's decay factors from shared
// memory, evaluated once a block (gdn_chunk_pass.cuh, kExps), instead of by every warp.
//
// Why: a warp of the pass evaluates exp(lg_t) and exp(lg_L - lg_t) for its 16 tokens of each 8-token
// tile, 32 expf a lane a chunk (~8 instructions each without fast math), though they depend on the
// chunk alone. ncu (H100, one 8192-token sequence) put a warp's step at ~1000 instructions of which
// the mma is a tenth and the pass issue-bound on one or two warps a scheduler, so the quarter of a
// step spent on the factors is a quarter of its issue time. Here each thread loads one or two of the
// chunk's log gates when the chunk is staged and stores their factors after the step before, behind
// its closing barrier; the step reads two float2 a tile. The same expf of the same floats: the same
// bits as ksplit_vecpdl24. Expected: faster on every chunked call, the long single sequences most;
// lane8's calls unchanged.
#include <kharness/kernel.h>

#include "gdn_chunk_pass.cuh"
#include "gdn_chunk_prep_tinv.cuh"

void gdn_prefill_ksplit_exps24(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                               const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                               const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                               DLTensor* new_state, kh_stream_t stream) {
  gdn_chunk_tc::run<2, gdn_chunk_tc::launch_prep_vec_pdl, true, 24, 128, true>(
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state),
      cu_seqlens->shape[0] - 1, q->shape[0], stream, gdn_chunk_tc::launch_pass_for<2, true, true, true>);
}
