#include "timing/l2_flush.h"

#include "base/cuda_call.h"

namespace kh {

L2Flush::L2Flush(std::size_t l2_bytes) : bytes_(2 * l2_bytes) {
  if (bytes_ > 0) KH_CUDA_CALL(cudaMalloc(&buffer_, bytes_));
}

L2Flush::~L2Flush() {
  if (buffer_ != nullptr) KH_CUDA_CALL_NOEXCEPT(cudaFree(buffer_));
}

void L2Flush::flush(cudaStream_t stream) {
  if (buffer_ == nullptr) return;
  KH_CUDA_CALL(cudaMemsetAsync(buffer_, 0, bytes_, stream));
  KH_CUDA_CALL(cudaStreamSynchronize(stream));
}

}  // namespace kh
