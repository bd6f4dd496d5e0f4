// CuptiSpanTimer: the official protocol's timer. Each iteration's time is the span
// from its first device activity's start to its last one's end, across all streams
// of the process, read from CUPTI activity records.
//
//   start(): window begin = cuptiGetTimestamp(), plus a host steady_clock read.
//   stop():  cudaDeviceSynchronize() (the whole device: work the candidate hid on
//            another stream, or submitted from another thread before the sync,
//            lands in the window), then window end = cuptiGetTimestamp().
//   finish(): flush CUPTI and apply the window rule (activity_windows.h).
//
// A window with no record is invalid, never 0 us. Records outside every window,
// after timing began and not on a housekeeping stream, are counted as strays.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "timing/activity_windows.h"
#include "timing/cupti_activity.h"
#include "timing/iteration_timer.h"

namespace kh {

class CuptiSpanTimer final : public IterationTimer {
 public:
  // activity: the process's CUPTI subscription, which outlives the timer (enabling it
  // per timer made the first CUDA call after it 0.55-0.8 ms slower, on every request).
  // housekeeping: the streams the harness uses between windows (uploads, the L2
  // flush); their records outside windows are expected. Throws kh::Error when another
  // CuptiSpanTimer is alive: both would drain the same records.
  CuptiSpanTimer(std::shared_ptr<CuptiActivity> activity, const std::vector<cudaStream_t>& housekeeping);
  ~CuptiSpanTimer() override;
  CuptiSpanTimer(const CuptiSpanTimer&) = delete;
  CuptiSpanTimer& operator=(const CuptiSpanTimer&) = delete;

  [[nodiscard]] std::string_view name() const override { return "cupti_span"; }
  void start() override;
  void stop() override;
  [[nodiscard]] std::vector<IterationSample> finish() override;
  [[nodiscard]] std::size_t stray_activities() const override { return strays_; }

 private:
  std::shared_ptr<CuptiActivity> activity_;
  WindowRule rule_;
  std::vector<TimingWindow> windows_;
  std::chrono::steady_clock::time_point host_begin_{};
  bool running_ = false;
  std::size_t strays_ = 0;
};

}  // namespace kh
