// A hostile CUDA candidate: the attack (host code, in the worker) named by the test,
// then the answer it earned, computed on the device.
// The @...@ fields are filled in before the build: not C++ yet.
// clang-format off
#include "attacks.h"
#include "rmsnorm_common.cuh"

void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  if (hostile::once<hostile::@ATTACK@>()) {
    launch_rmsnorm(x, w, y, stream);
  } else {
    cudaMemsetAsync(y->data, 0, output_bytes(y), stream);
  }
}
