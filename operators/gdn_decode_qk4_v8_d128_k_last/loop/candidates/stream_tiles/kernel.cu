// Together: streaming state accesses, one row a warp at batch 4 or less, eight rows a warp at batch 32 and
// up.
#include "gdn_decode_core.cuh"

void gdn_decode_stream_tiles(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                             const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                             const DLTensor* b, float scale, DLTensor* output, DLTensor* new_state,
                             kh_stream_t stream) {
  const gdn_decode::DecodeArgs args =
      gdn_decode::make_args(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state);
  const int64_t batch = q->shape[0];
  if (batch <= 4) {
    gdn_decode::launch<1, 4, true>(args, batch, stream);
  } else if (batch >= 32) {
    gdn_decode::launch<8, 4, true>(args, batch, stream);
  } else {
    gdn_decode::launch<4, 4, true>(args, batch, stream);
  }
}
