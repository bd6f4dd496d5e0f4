// IterationTimer: measures each timed iteration of a kernel call.
//
// The protocol code brackets every iteration with start()/stop() and reads all
// samples at the end with finish(), so a timer that collects device records
// asynchronously (CUPTI) never stalls the loop.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "error/error.h"

namespace kh {

// finish() lost records of the timed iterations: CUPTI dropped some. kharness's buffers are
// always there when CUPTI asks, so records go missing when something in the process switched
// the recording off and on around work (cupti_blind.cu did so on the H100, 2026-12-05: 6
// records dropped). The spans cannot be trusted; the evaluation calls it timer tampering.
class TimerRecordsLost : public Error {
 public:
  using Error::Error;
};

struct IterationSample {
  double span_ms = 0;  // first activity start to last activity end, all streams
  int activities = 0;  // kernels, copies and sets seen in the window (CUPTI), else 1
  bool valid = true;   // false: nothing was seen in the window (never 0 us)
  // Host wall time from start() to the end of stop()'s device synchronisation. An
  // independent second source: the protocol cross-checks it against span_ms (a
  // CUPTI window with no records while the host saw time passing means tampering).
  double host_ms = 0;
};

class IterationTimer {
 public:
  virtual ~IterationTimer() = default;
  // "cupti_span", "cuda_event" or "steady_clock"; written into every trace.
  [[nodiscard]] virtual std::string_view name() const = 0;
  // Called right before the candidate's call. The device is idle at this point.
  virtual void start() = 0;
  // Called right after the call returns. Implementations synchronise the whole
  // device, so work hidden on other streams or threads lands inside the window.
  virtual void stop() = 0;
  // One sample per start()/stop() pair, in order. Resets the timer.
  [[nodiscard]] virtual std::vector<IterationSample> finish() = 0;
  // Device activities that the last finish() found outside every window, after the
  // first window began (other processes' work is invisible to CUPTI; this counts our
  // own stragglers, such as work a candidate's unjoined thread submitted late).
  [[nodiscard]] virtual std::size_t stray_activities() const { return 0; }
};

}  // namespace kh
