// A kernel that never ends. `volatile` keeps the compiler from proving the loop
// side-effect free and deleting it.
#include "rmsnorm_common.cuh"

__global__ void spin(int* sink) {
  volatile int forever = 1;
  while (forever) {
  }
  *sink = 0;
}

void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  launch_rmsnorm(x, w, y, stream);
  spin<<<1, 1, 0, stream>>>(static_cast<int*>(y->data));
}
