// Every element 10% too large: well outside atol/rtol 1e-2.
#include "rmsnorm_common.cuh"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  launch_rmsnorm(x, w, y, stream, 1.1f);
}
