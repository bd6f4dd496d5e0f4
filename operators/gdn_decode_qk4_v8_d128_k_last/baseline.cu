// CUDA baseline for gdn_decode_qk4_v8_d128_k_last: the single-pass kernel of
// gdn_decode_core.cuh (one warp per k-last state row, k.S and q.S of the old row reduced
// together), with plain loads and stores.
//
// kh:param ROWS_PER_WARP in {1,2,4,8}  state rows each warp carries (loads in flight)
// kh:param WARPS_PER_BLOCK in {1,2,4,8}  warps per block; a block covers ROWS_PER_WARP * WARPS_PER_BLOCK rows
#include "gdn_decode_core.cuh"

#ifndef ROWS_PER_WARP
#define ROWS_PER_WARP 4
#endif
#ifndef WARPS_PER_BLOCK
#define WARPS_PER_BLOCK 4
#endif

void gdn_decode_baseline(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                         const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias, const DLTensor* b,
                         float scale, DLTensor* output, DLTensor* new_state, kh_stream_t stream) {
  gdn_decode::launch<ROWS_PER_WARP, WARPS_PER_BLOCK, false>(
      gdn_decode::make_args(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state), q->shape[0],
      stream);
}
