// The honest work done 20 times: the yardstick for pointer_cache.cu's slow path.
#include "rmsnorm_common.cuh"
#include "slow_path.cuh"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  slow_rmsnorm(x, w, y, stream);
}
