#include "timing/cupti_span_timer.h"

#include <atomic>
#include <utility>

#include "base/cuda_call.h"
#include "error/error.h"

namespace kh {

namespace {
std::atomic<bool> g_timer_alive{false};
}  // namespace

CuptiSpanTimer::CuptiSpanTimer(std::shared_ptr<CuptiActivity> activity,
                               const std::vector<cudaStream_t>& housekeeping)
    : activity_(std::move(activity)) {
  if (g_timer_alive.exchange(true))
    throw Error("CUPTI activity is already owned by another timer in this process");
  try {
    for (cudaStream_t stream : housekeeping)
      rule_.housekeeping_streams.insert(CuptiActivity::stream_id(stream));
  } catch (const Error&) {
    g_timer_alive.store(false);
    throw;
  }
  activity_->discard();  // the harness's work before this timer existed belongs to nobody
}

CuptiSpanTimer::~CuptiSpanTimer() { g_timer_alive.store(false); }

void CuptiSpanTimer::start() {
  if (running_) throw Error("cupti_span timer: start() called twice without stop()");
  running_ = true;
  host_begin_ = std::chrono::steady_clock::now();
  windows_.push_back(TimingWindow{.begin_ns = CuptiActivity::timestamp_ns(), .end_ns = 0, .host_ms = 0});
}

void CuptiSpanTimer::stop() {
  if (!running_) throw Error("cupti_span timer: stop() called without start()");
  running_ = false;
  // The whole device, not the harness's stream: side-stream and other-thread work
  // that was submitted before this point must finish inside the window. A failure
  // here (e.g. an illegal address in the candidate) propagates; the backend's
  // sticky() tells the caller whether the worker must be replaced.
  try {
    KH_CUDA_CALL(cudaDeviceSynchronize());
  } catch (const Error&) {
    windows_.pop_back();  // an unfinished window has no end to assign records against
    throw;
  }
  TimingWindow& window = windows_.back();
  window.end_ns = CuptiActivity::timestamp_ns();
  window.host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_begin_).count();
}

std::vector<IterationSample> CuptiSpanTimer::finish() {
  if (running_) throw Error("cupti_span timer: finish() called inside a window");
  const ActivityLog log = activity_->drain();
  WindowAssignment assignment = assign_to_windows(log.device, log.launches, windows_, rule_);
  windows_.clear();
  strays_ = assignment.strays;
  return std::move(assignment.samples);
}

}  // namespace kh
