// Correct but about 4x the work: every row is normalised four times.
#include "rmsnorm_common.h"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {
  for (int i = 0; i < 4; ++i) rmsnorm_rows(x, w, y, 0, x->shape[0]);
}
