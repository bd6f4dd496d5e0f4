// Right while checked, wrong once timed: from its 3rd call on (the first workload's 2
// checks are calls 1-2, its warm-up and timed run follow) every output is 10% too large,
// far outside the tolerance. Only the re-check of timed outputs can see it on that
// workload; later workloads fail their checks.
#include "rmsnorm_common.h"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {
  static int calls = 0;
  rmsnorm_rows(x, w, y, 0, x->shape[0]);
  if (++calls < 3) return;
  auto* out = static_cast<uint16_t*>(y->data);
  for (int64_t i = 0; i < y->shape[0] * y->shape[1]; ++i)
    out[i] = float_to_bf16(bf16_to_float(out[i]) * 1.1f);
}
