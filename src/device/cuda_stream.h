// CudaStream: one owned non-blocking CUDA stream.
//
// Non-blocking, so it has no implicit ordering with the legacy default stream: the
// harness orders work only by its explicit, device-wide synchronisations, and what
// a candidate or a library puts on stream 0 cannot stall the harness's streams.
#pragma once

#include <cuda_runtime_api.h>

#include "base/cuda_call.h"

namespace kh {

class CudaStream {
 public:
  CudaStream() { KH_CUDA_CALL(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() { KH_CUDA_CALL_NOEXCEPT(cudaStreamDestroy(stream_)); }
  // Owns the stream handle: a copy would destroy it twice.
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  [[nodiscard]] cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace kh
