// SteadyClockTimer: host wall time of each iteration, std::chrono::steady_clock.
//
// The CPU backend's timer: a CPU kernel runs on the calling thread, so the span of
// the call is the span of the work. On a GPU it would only bound the work from
// above, which is why the CUDA backend never offers it first.
#pragma once

#include <chrono>
#include <vector>

#include "timing/iteration_timer.h"

namespace kh {

class SteadyClockTimer final : public IterationTimer {
 public:
  [[nodiscard]] std::string_view name() const override { return "steady_clock"; }
  void start() override;
  void stop() override;
  [[nodiscard]] std::vector<IterationSample> finish() override;

 private:
  std::chrono::steady_clock::time_point begin_{};
  bool running_ = false;
  std::vector<IterationSample> samples_;
};

}  // namespace kh
