// Honest while checked, a scribbler once timed: from its 5th call on it bumps its input
// (the first workload's 2 checks are calls 1-2, its timed run starts at call 3), so only
// the hashes taken on the device around the timed loop can catch it on that workload.
#include "rmsnorm_common.cuh"
__global__ void bump_first(uint16_t* x) { ++x[0]; }
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  static int calls = 0;
  launch_rmsnorm(x, w, y, stream);
  if (++calls >= 5) bump_first<<<1, 1, 0, stream>>>(static_cast<uint16_t*>(x->data));
}
