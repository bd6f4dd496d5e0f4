// Correct output, but scribbles on its input afterwards (e.g. uses it as scratch).
#include "rmsnorm_common.cuh"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  launch_rmsnorm(x, w, y, stream);
  cudaMemsetAsync(x->data, 0, 2, stream);
}
