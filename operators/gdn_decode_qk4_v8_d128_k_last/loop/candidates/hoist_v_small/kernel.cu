// hoist_v where it paid: v read up front (kHoistV) at batch 4 or less, where a call is a few DRAM
// round trips; the baseline's kernel from batch 8 up, where hoist_v was 4-8% slower (H100: batch 1
// 1.15x, 4 1.05x, 8 0.96x, 16 0.92x, 32-64 0.98-0.99x).
#include "gdn_decode_core.cuh"

void gdn_decode_hoist_v_small(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                              const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                              const DLTensor* b, float scale, DLTensor* output, DLTensor* new_state,
                              kh_stream_t stream) {
  const gdn_decode::DecodeArgs args =
      gdn_decode::make_args(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state);
  const int64_t batch = q->shape[0];
  if (batch <= 4) {
    gdn_decode::launch<4, 4, false, true>(args, batch, stream);
  } else {
    gdn_decode::launch<4, 4, false, false>(args, batch, stream);
  }
}
