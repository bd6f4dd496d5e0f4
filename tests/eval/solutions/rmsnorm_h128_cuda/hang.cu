// A kernel that never ends. The loop condition reads a clock, which the compiler cannot
// prove constant, so it cannot delete the loop (a volatile local was not enough: nvcc
// kept it in a register and the kernel finished). The clock is the global timer, not
// clock64(): clock64() counts per SM, and a kernel preempted by another context's work
// (ctest -j2 on one GPU) may resume on an SM whose count is lower, which ended the loop
// on the H200 and turned the expected TIMEOUT into a wrong answer.
#include "rmsnorm_common.cuh"

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin(int* sink) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < (1ull << 62)) {  // about 146 years
  }
  *sink = 0;
}

void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  launch_rmsnorm(x, w, y, stream);
  spin<<<1, 1, 0, stream>>>(static_cast<int*>(y->data));
}
