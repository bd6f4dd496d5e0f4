#include "timing/steady_clock_timer.h"

#include <utility>

#include "error/error.h"

namespace kh {

void SteadyClockTimer::start() {
  if (running_) throw Error("steady_clock timer: start() called twice without stop()");
  running_ = true;
  begin_ = std::chrono::steady_clock::now();
}

void SteadyClockTimer::stop() {
  const auto end = std::chrono::steady_clock::now();
  if (!running_) throw Error("steady_clock timer: stop() called without start()");
  running_ = false;
  const double ms = std::chrono::duration<double, std::milli>(end - begin_).count();
  // The call ran on this thread between the two reads, so the window saw work: a
  // sample is always valid, and one activity (the call itself).
  samples_.push_back(IterationSample{.span_ms = ms, .activities = 1, .valid = true, .host_ms = ms});
}

std::vector<IterationSample> SteadyClockTimer::finish() {
  if (running_) throw Error("steady_clock timer: finish() called inside a window");
  return std::exchange(samples_, {});
}

}  // namespace kh
