// Large batches are bandwidth-bound at about 80% of the copy rate: eight rows a warp doubles the loads in
// flight per lane.
#include "gdn_decode_core.cuh"

void gdn_decode_rows8(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                      const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias, const DLTensor* b,
                      float scale, DLTensor* output, DLTensor* new_state, kh_stream_t stream) {
  const gdn_decode::DecodeArgs args =
      gdn_decode::make_args(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state);
  const int64_t batch = q->shape[0];
  // At batch 32 and up the grid is many waves deep; 8 rows a warp keeps 128 bytes a lane in flight.
  if (batch >= 32) {
    gdn_decode::launch<8, 4, false>(args, batch, stream);
  } else {
    gdn_decode::launch<4, 4, false>(args, batch, stream);
  }
}
