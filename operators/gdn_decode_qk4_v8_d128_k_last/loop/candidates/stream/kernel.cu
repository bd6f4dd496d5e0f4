// The state is read and written once: loads that skip L1 and evict-first stores keep its 64 KiB a head from
// displacing q, k and v.
#include "gdn_decode_core.cuh"

void gdn_decode_stream(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                       const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias, const DLTensor* b,
                       float scale, DLTensor* output, DLTensor* new_state, kh_stream_t stream) {
  const gdn_decode::DecodeArgs args =
      gdn_decode::make_args(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state);
  const int64_t batch = q->shape[0];
  gdn_decode::launch<4, 4, true>(args, batch, stream);
}
