// hoist_v with batch_tiles' rule: one row a warp (four times the blocks) where the batch is 4 or
// less, where 4 x 4 tiles leave most SMs idle.
#include "gdn_decode_core.cuh"

void gdn_decode_hoist_v_tiles(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                              const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                              const DLTensor* b, float scale, DLTensor* output, DLTensor* new_state,
                              kh_stream_t stream) {
  const gdn_decode::DecodeArgs args =
      gdn_decode::make_args(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state);
  const int64_t batch = q->shape[0];
  if (batch <= 4) {
    gdn_decode::launch<1, 4, false, true>(args, batch, stream);
  } else {
    gdn_decode::launch<4, 4, false, true>(args, batch, stream);
  }
}
