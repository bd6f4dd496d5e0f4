#include "timing/event_timer.h"

#include <algorithm>
#include <utility>

#include "error/error.h"

namespace kh {

void EventTimer::start() {
  if (running_) throw Error("cuda_event timer: start() called twice without stop()");
  running_ = true;
  host_begin_ = std::chrono::steady_clock::now();
  begin_.record(stream_);
}

void EventTimer::stop() {
  if (!running_) throw Error("cuda_event timer: stop() called without start()");
  running_ = false;
  end_.record(stream_);
  // The whole device, so the host span bounds work on every stream.
  KH_CUDA_CALL(cudaDeviceSynchronize());
  const double host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_begin_).count();
  // Both events completed in the synchronisation above, so reading them here does
  // not stall the loop any further, and two events serve every iteration.
  const double event_ms = std::max(0.0, static_cast<double>(CudaEvent::elapsed_ms(begin_, end_)));
  samples_.push_back(
      IterationSample{.span_ms = event_ms, .activities = 1, .valid = true, .host_ms = host_ms});
}

std::vector<IterationSample> EventTimer::finish() {
  if (running_) throw Error("cuda_event timer: finish() called inside a window");
  return std::exchange(samples_, {});
}

}  // namespace kh
