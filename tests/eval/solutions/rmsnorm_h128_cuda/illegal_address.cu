// Writes through a pointer into unmapped device memory: an illegal address, a sticky
// error that leaves the worker's CUDA context unusable.
#include "rmsnorm_common.cuh"

__global__ void scribble(float* bad) { bad[threadIdx.x] = 1.f; }

void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  launch_rmsnorm(x, w, y, stream);
  scribble<<<1, 32, 0, stream>>>(reinterpret_cast<float*>(0x100));
}
