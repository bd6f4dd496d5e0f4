// The outcome of evaluating one solution on one workload: the status, the evidence,
// and every parameter that produced it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "eval/check/output_checker.h"
#include "eval/speed_of_light.h"
#include "timing/sample_statistics.h"
#include "trace/trace.h"
#include "trace/workload.h"

namespace kh {

struct LatencyMeasurement {
  std::string timer;       // cupti_span, cuda_event or steady_clock
  std::string timer_note;  // why not CUPTI, when not
  double latency_ms = 0;   // official: mean of trial medians; robust: median
  std::vector<double> trial_medians_ms;
  SampleStatistics stats;                             // over all accepted samples
  std::size_t throttled = 0;                          // samples dropped for a low SM clock
  double mean_sm_clock_mhz = 0;                       // over accepted samples; 0 where clocks cannot be read
  std::vector<std::vector<std::uint64_t>> set_seeds;  // per trial
  std::vector<std::vector<double>> samples_ms;        // accepted samples per trial, kept for the archive
  std::string stop_reason;
  // Where the worker's host time went, summed over trials (generate, upload, poison,
  // flush, timed, clock, collect, ...): the harness's overhead, accounted for.
  nlohmann::ordered_json phases_ms = nlohmann::ordered_json::object();
  double request_wall_ms = 0;  // the time requests, measured by the orchestrator
  // "measured" in this evaluation, or "cache" (a reference's latency reused from the
  // reference-latency cache, measured at `measured_at`; reference_latency_cache.h).
  std::string source = "measured";
  std::string measured_at;
  std::string cache_key;
};

struct WorkloadResult {
  Workload workload;
  EvalStatus status = EvalStatus::runtime_error;
  std::string log;                          // why, for any status but PASSED
  std::vector<std::uint64_t> check_seeds;   // correctness trials
  std::optional<CheckVerdict> correctness;  // worst trial
  std::optional<LatencyMeasurement> latency;
  std::optional<LatencyMeasurement> reference_latency;
  std::size_t worker_restarts = 0;
  // Where the orchestrator's wall time for this workload went, by step: correctness
  // (the check calls, both workers), compare (checking outputs on the host), timing (the
  // candidate's time requests), recheck (fetching re-checked outputs and computing the
  // reference's), reference_timing; workload is the whole evaluation of the workload.
  // Tells the harness's cost from the kernels'.
  nlohmann::ordered_json orchestrator_ms = nlohmann::ordered_json::object();
  // The worker requests behind those steps: {"candidate"|"reference": {kind: {count,
  // wall_ms, reply_bytes, worker_ms: {phase: ms}}}} (request_ledger.h).
  nlohmann::ordered_json requests = nlohmann::ordered_json::object();
  // The candidate timed out, or its worker died (a crash or a sticky device error):
  // what --max-consecutive-failures counts.
  bool fatal = false;
  // Not evaluated: reported with the status of the consecutive fatal failures before it.
  bool not_run = false;
  std::size_t lane = 0;                        // which of SolutionEvaluation::lanes ran it
  std::optional<WorkloadWork> work;            // from the operator's speed-of-light model
  std::optional<SpeedOfLight> speed_of_light;  // its floor on this device, when peaks are known

  // floor / latency: 1 means the kernel runs at the device's measured limit.
  [[nodiscard]] double speed_of_light_fraction() const {
    if (!speed_of_light || !latency || latency->latency_ms <= 0) return 0;
    return speed_of_light->floor_s * 1e3 / latency->latency_ms;
  }
  [[nodiscard]] double speedup() const {
    if (!latency || !reference_latency || latency->latency_ms <= 0) return 0;
    return reference_latency->latency_ms / latency->latency_ms;
  }
};

}  // namespace kh
