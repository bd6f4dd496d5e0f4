// Cheat probe (must never be promoted): launches the baseline's kernel on a stream of its
// own and returns without joining the caller's stream, so the caller's stream holds no
// work at all. A timer that records events on the caller's stream alone would see an
// empty call; the work still lands before anyone reads the outputs on the device.
#include "gdn_decode_core.cuh"

void gdn_decode_side_stream(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                            const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias, const DLTensor* b,
                            float scale, DLTensor* output, DLTensor* new_state, kh_stream_t stream) {
  static cudaStream_t side = nullptr;
  if (side == nullptr) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  const gdn_decode::DecodeArgs args =
      gdn_decode::make_args(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state);
  gdn_decode::launch<4, 4, false>(args, q->shape[0], side);
  (void)stream;
}
