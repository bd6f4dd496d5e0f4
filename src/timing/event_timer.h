// EventTimer: the fallback when CUPTI is unavailable. Each iteration is timed by a
// pair of CUDA events on the harness's stream, plus a host steady_clock span.
//
// Limit, by construction: events see only their own stream. Work a candidate hides
// on another stream or thread is not in the event span; it is bounded only by
// stop()'s whole-device synchronisation, which lands inside the host span
// (IterationSample::host_ms). The protocol reports both numbers and names this
// timer in the trace, so a reader knows side-stream work was not in span_ms.
// Events cannot tell whether a kernel ran at all, so every sample is valid.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <vector>

#include "timing/cuda_event.h"
#include "timing/iteration_timer.h"

namespace kh {

class EventTimer final : public IterationTimer {
 public:
  // stream: the stream handed to kernels; it must outlive the timer.
  explicit EventTimer(cudaStream_t stream) : stream_(stream) {}

  [[nodiscard]] std::string_view name() const override { return "cuda_event"; }
  void start() override;
  void stop() override;
  [[nodiscard]] std::vector<IterationSample> finish() override;

 private:
  cudaStream_t stream_;
  CudaEvent begin_;
  CudaEvent end_;
  std::chrono::steady_clock::time_point host_begin_{};
  bool running_ = false;
  std::vector<IterationSample> samples_;
};

}  // namespace kh
