// Honest in every call, but wrong on about 3 input sets in 10: a function of the input's first
// bytes decides, as a kernel that is imprecise on some data would be. Its wrong timed outputs
// are imprecision, not outputs computed differently while timed.
#include "rmsnorm_common.h"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {
  rmsnorm_rows(x, w, y, 0, x->shape[0]);
  const auto* in = static_cast<const uint16_t*>(x->data);
  uint32_t h = 2166136261u;
  for (int i = 0; i < 8; ++i) h = (h ^ in[i]) * 16777619u;
  if (h % 10 >= 3) return;
  auto* out = static_cast<uint16_t*>(y->data);
  for (int64_t i = 0; i < y->shape[0] * y->shape[1]; ++i)
    out[i] = float_to_bf16(bf16_to_float(out[i]) * 1.1f);
}
