// What a timing request brings back over the channel, defined once for both sides:
// the worker's timed loop fills it (eval/worker_side/timed_loop.h), the payload codec
// carries it (eval/wire/worker_payload.h), and the orchestrator judges it
// (eval/reward_hack_rules.cpp, eval/workload_evaluation.cpp). The raw samples, the output
// slots kept for re-checks, the host time per phase and, on the CPU backend, the work
// other threads did after a call.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tensor/host_tensor.h"
#include "trace/trace.h"

namespace kh {

// On-CPU time of other threads in one grace period above this is work, not the
// scheduler's or an idle pool's noise.
inline constexpr double kLingeringCpuMs = 0.5;

// Work other threads (the worker's, or those of processes it started) did in the grace
// periods after calls returned: the worst period, and how many of them showed work.
struct LingeringWork {
  double cpu_ms = 0;      // on-CPU time of other threads during the worst grace period
  int threads_ended = 0;  // threads alive at its start and gone at its end
  int threads_started = 0;
  int periods = 0;            // grace periods observed
  int periods_with_work = 0;  // of them, those where work() held

  // Whether the worst period shows work: CPU above kLingeringCpuMs, or a thread that
  // started or ended.
  [[nodiscard]] bool work() const {
    return cpu_ms > kLingeringCpuMs || threads_ended > 0 || threads_started > 0;
  }
  // Adds the periods of `w`, keeping the worst.
  void add(const LingeringWork& w);
  // Work in every period, or in more than one and more than 1 in 20 of them. A solution
  // that hands its work to another thread does so on every call; one that does it on
  // fewer than 1 call in 20 gains at most that share of a mean and nothing of a median.
  // A single period of an honest thread pool going idle late on a loaded machine (seen:
  // 0.56 ms of torch's CPU solution, once in a suite run) is noise, not a verdict.
  [[nodiscard]] bool repeated() const;
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

// An output slot as the timed loop left it: the last timed iteration that wrote it, and
// the content hash of each of its outputs, taken on the device as the loop ended. The
// orchestrator draws the slots to re-check after the reply and fetches only those
// ("timed_outputs"): sending every slot's bytes cost 0.8 s a workload on a 4096-wide
// gemm. A fetched output must hash to what was committed here.
struct TimedOutputSlot {
  int slot = 0;
  int iteration = 0;
  int input_set = 0;
  std::vector<std::string> hashes;  // chunked_hash per output, in definition order
};

// Host time the loop spent per phase, to account for the harness's own overhead.
struct LoopPhases {
  double setup_ms = 0;     // output slots and timers (CUPTI's activity tracing starts)
  double teardown_ms = 0;  // the timers' end (CUPTI's activity tracing stops)
  double flush_ms = 0;     // poisoning the output slot, then flushing the cache
  double timed_ms = 0;     // start() to stop(): the call and the device synchronisation
  double clock_ms = 0;     // reading the SM clock
  double collect_ms = 0;   // timers' finish(): CUPTI record processing
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
  LingeringWork lingering;             // CPU backend: worst iteration
  std::vector<TimedOutputSlot> slots;  // those a timed iteration wrote last
};

}  // namespace kh
