// Launches a kernel that writes nothing: the poisoned output stays NaN.
#include "rmsnorm_common.cuh"

__global__ void nothing() {}

void rmsnorm(const DLTensor*, const DLTensor*, DLTensor*, kh_stream_t stream) {
  nothing<<<1, 32, 0, stream>>>();
}
