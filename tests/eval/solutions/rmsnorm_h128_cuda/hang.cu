// A kernel that never ends. The loop condition reads the SM clock, which the compiler
// cannot prove constant, so it cannot delete the loop (a volatile local was not enough:
// nvcc kept it in a register and the kernel finished).
#include "rmsnorm_common.cuh"

__global__ void spin(int* sink) {
  const long long start = clock64();
  while (clock64() >= start) {
  }
  *sink = 0;
}

void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  launch_rmsnorm(x, w, y, stream);
  spin<<<1, 1, 0, stream>>>(static_cast<int*>(y->data));
}
