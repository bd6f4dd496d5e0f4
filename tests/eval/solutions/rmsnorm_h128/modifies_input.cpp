// Correct output, but scribbles on its input afterwards (e.g. uses it as scratch).
#include "rmsnorm_common.h"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {
  rmsnorm_rows(x, w, y, 0, x->shape[0]);
  static_cast<uint16_t*>(x->data)[0] ^= 0x1234;
}
