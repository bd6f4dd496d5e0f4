// CudaEvent: one owned cudaEvent_t with timing enabled.
#pragma once

#include <cuda_runtime_api.h>

#include "base/cuda_call.h"

namespace kh {

class CudaEvent {
 public:
  CudaEvent() { KH_CUDA_CALL(cudaEventCreateWithFlags(&event_, cudaEventDefault)); }
  ~CudaEvent() { KH_CUDA_CALL_NOEXCEPT(cudaEventDestroy(event_)); }
  // Owns the event handle: a copy would destroy it twice.
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  void record(cudaStream_t stream) { KH_CUDA_CALL(cudaEventRecord(event_, stream)); }
  [[nodiscard]] cudaEvent_t get() const noexcept { return event_; }

  // Milliseconds from begin to end; both must have completed.
  [[nodiscard]] static float elapsed_ms(const CudaEvent& begin, const CudaEvent& end) {
    float ms = 0;
    KH_CUDA_CALL(cudaEventElapsedTime(&ms, begin.event_, end.event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace kh
