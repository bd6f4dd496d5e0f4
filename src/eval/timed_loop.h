// The worker's timed loop: the measurement of docs/timing.md, on one workload.
//
// Every iteration: poison this iteration's output slot, flush the cache, then time
// the call with the primary timer (CUPTI all-stream span, or steady clock on the CPU)
// and, on CUDA, a CUDA-event timer alongside it for cross-checking. Input sets rotate,
// so consecutive iterations see different data at different addresses; output slots
// rotate too, and the last slots' contents come back to be re-checked. No CUDA graphs.
// Each call's arguments are converted for the kernel (Kernel::prepare) before the timers
// start, so only the call itself is timed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/backend.h"
#include "eval/device_tensors.h"
#include "eval/kernel.h"
#include "eval/thread_activity_probe.h"
#include "timing/stop_criterion.h"

namespace kh {

struct TimedLoopConfig {
  int warmup = 10;
  int iterations = 50;                   // the official protocol's fixed count
  std::optional<StopParameters> robust;  // set: sample until the stdrel rule stops
  int recheck = 4;                       // output slots; the last contents of each come back to be re-checked
  std::uint8_t poison = 0xFF;
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

[[nodiscard]] TimedLoopResult run_timed_loop(Backend& backend, const Kernel& kernel,
                                             std::vector<std::vector<DeviceTensor>>& input_sets,
                                             const std::vector<HostTensor>& output_templates,
                                             const TimedLoopConfig& config);

}  // namespace kh
