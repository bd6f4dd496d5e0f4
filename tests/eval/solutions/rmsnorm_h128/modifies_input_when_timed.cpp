// Honest while checked, a scribbler once timed: from its 5th call on it bumps its input
// (the first workload's 2 checks are calls 1-2, its timed run starts at call 3), so only
// the hashes taken around the timed loop can catch it on that workload.
#include "rmsnorm_common.h"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {
  static int calls = 0;
  rmsnorm_rows(x, w, y, 0, x->shape[0]);
  if (++calls >= 5) ++static_cast<uint16_t*>(x->data)[0];
}
