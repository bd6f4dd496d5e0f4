// The baseline's 4 x 4 tiles with v read up front (kHoistV): all of a warp's loads are issued
// before its first store, instead of one load of v a row behind the previous row's stores.
#include "gdn_decode_core.cuh"

void gdn_decode_hoist_v(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                        const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias, const DLTensor* b,
                        float scale, DLTensor* output, DLTensor* new_state, kh_stream_t stream) {
  gdn_decode::launch<4, 4, false, true>(
      gdn_decode::make_args(q, k, v, state, A_log, a, dt_bias, b, scale, output, new_state), q->shape[0],
      stream);
}
