// What a timing request brings back over the channel, defined once for both sides:
// the worker's timed loop fills it (eval/worker_side/timed_loop.h), the payload codec
// carries it (eval/wire/worker_payload.h), and the orchestrator judges it
// (eval/workload_evaluation.cpp). The raw samples, the outputs kept for re-checks, the
// host time per phase and, on the CPU backend, the work other threads did after a call.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tensor/host_tensor.h"
#include "trace/trace.h"

namespace kh {

struct LingeringWork {
  double cpu_ms = 0;      // on-CPU time of other threads during the grace period
  int threads_ended = 0;  // threads alive at its start and gone at its end
  int threads_started = 0;

  [[nodiscard]] bool any(double cpu_threshold_ms) const {
    return cpu_ms > cpu_threshold_ms || threads_ended > 0 || threads_started > 0;
  }
  [[nodiscard]] std::string describe() const;
};

struct TimedSample {
  double ms = 0;         // primary timer
  double event_ms = -1;  // secondary (CUDA event) timer, -1 where there is none
  double call_ms = -1;   // host time of the call itself (no synchronisation), -1 where unmeasured
  int activities = 0;
  bool valid = true;
  double clock_mhz = 0;  // SM clock after the iteration, 0 when unreadable
  int input_set = 0;
};

struct RecheckedOutput {
  int iteration = 0;
  int input_set = 0;
  std::vector<HostTensor> outputs;
};

// Host time the loop spent per phase, to account for the harness's own overhead.
struct LoopPhases {
  double flush_ms = 0;    // poisoning the output slot, then flushing the cache
  double timed_ms = 0;    // start() to stop(): the call and the device synchronisation
  double clock_ms = 0;    // reading the SM clock
  double collect_ms = 0;  // timers' finish(): CUPTI record processing
  double warmup_ms = 0;
  double probe_ms = 0;  // CPU backend: what the lingering-work grace periods added
};

struct TimedLoopResult {
  LoopPhases phases;
  std::string timer;
  std::string timer_note;  // why the primary timer is not CUPTI, when it is not
  std::vector<TimedSample> samples;
  std::string stop_reason;
  std::string error;  // the candidate failed during the loop
  EvalStatus error_status = EvalStatus::runtime_error;
  std::size_t stray = 0;
  LingeringWork lingering;  // CPU backend: worst iteration
  std::vector<RecheckedOutput> rechecked;
};

}  // namespace kh
