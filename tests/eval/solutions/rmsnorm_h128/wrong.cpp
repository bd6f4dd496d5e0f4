// Off by 10%: well outside atol/rtol 1e-2.
#include "rmsnorm_common.h"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {
  rmsnorm_rows(x, w, y, 0, x->shape[0], 1.1f);
}
