// All zeros, written with a memset on the harness's stream.
#include "rmsnorm_common.cuh"
void rmsnorm(const DLTensor*, const DLTensor*, DLTensor* y, kh_stream_t stream) {
  cudaMemsetAsync(y->data, 0, output_bytes(y), stream);
}
