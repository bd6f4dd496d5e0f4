// The worker's timed loop: the measurement of docs/timing.md, on one workload.
//
// Every iteration: poison this iteration's output slot, flush the cache, then time
// the call with the primary timer (CUPTI all-stream span, or steady clock on the CPU)
// and, on CUDA, a CUDA-event timer alongside it for cross-checking. The warm-ups call
// input set 0; the timed calls rotate from set 0, so consecutive iterations see different
// data at different addresses, and where sets come round again, each other set's first
// timed call is its first call at all, never the loop's first timed call
// (eval/input_reuse_check.h compares the two); output slots
// rotate too, and the slots stay on the device for the orchestrator to fetch the ones it
// draws for re-checking. No CUDA graphs.
// Each call's arguments are converted for the kernel (Kernel::prepare) before the timers
// start, so only the call itself is timed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "device/backend.h"
#include "eval/wire/timed_result.h"
#include "eval/worker_side/device_tensors.h"
#include "eval/worker_side/kernel.h"
#include "timing/timing_protocol.h"

namespace kh {

// The output slots a timed iteration wrote last, in the order of TimedLoopResult::slots.
using KeptOutputs = std::vector<std::vector<DeviceTensor>>;

struct TimedLoopConfig {
  TimingProtocol protocol;  // warm-up, then a fixed count or sampling until the stop rule
  int recheck = 4;          // output slots; the orchestrator may fetch any of them after the loop
  std::uint8_t poison = 0xFF;
  // Runs once when the timed calls are over, given the kept slots: under a fixed count
  // before the primary timer's records are collected, since the first device work after
  // CUPTI's forced flush costs a few hundred microseconds (docs/timing.md); after the
  // loop otherwise. Not run when a call failed.
  std::function<void(const KeptOutputs&)> after_last_call;
};

// `kept` receives the slots; the result's slots describe them (hashes left empty).
[[nodiscard]] TimedLoopResult run_timed_loop(Backend& backend, const Kernel& kernel,
                                             std::vector<std::vector<DeviceTensor>>& input_sets,
                                             const std::vector<TensorLayout>& output_layouts,
                                             const TimedLoopConfig& config, KeptOutputs& kept);

}  // namespace kh
