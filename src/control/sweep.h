// One sweep: one solution measured on a set of workloads in one evaluation (one worker
// session, one protocol). What the gate, full validation, the paired baseline and the
// confirmation each produce, and what promotion compares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/speed_of_light.h"

namespace kh::control {

struct SweepWorkload {
  std::string uuid;
  std::string status;                          // PASSED, INCORRECT_NUMERICAL, REWARD_HACK, ...
  std::optional<double> latency_ms;            // present when it passed and was timed
  double noise = 0;                            // relative run-to-run spread of this measurement
  std::optional<SpeedOfLight> speed_of_light;  // the floor on this device, when the model and peaks are known
  double sol_fraction = 0;                     // floor / latency, 0 when unknown
};

struct Sweep {
  std::string protocol;  // official | robust
  std::vector<SweepWorkload> workloads;
  std::int64_t run_id = 0;  // the archived run it was read from; 0 for synthetic sweeps
  bool reused = false;      // read back from the archive rather than measured now
  std::string started_at;   // the archived run's times (archive/utc_time.h); empty for synthetic sweeps
  std::string finished_at;

  [[nodiscard]] std::size_t passed() const;
  [[nodiscard]] bool all_passed() const { return !workloads.empty() && passed() == workloads.size(); }
  // The median of the workloads' noise (0 when none was timed).
  [[nodiscard]] double noise() const;
  // The first status that is not PASSED, or "PASSED".
  [[nodiscard]] std::string worst_status() const;
  [[nodiscard]] nlohmann::ordered_json json() const;
};

// What a comparison of two sweeps weighs. geomean: every workload counts once (the geometric
// mean of the per-workload ratios), so one slow shape does not dominate. mean: every workload
// counts by its time (the ratio of the summed latencies), as a contest's mean latency does:
// a gain on the calls that hold most of the time counts for what it saves.
enum class Objective { geomean, mean };

[[nodiscard]] std::string_view objective_name(Objective objective);
// "geomean" or "mean"; nullopt otherwise.
[[nodiscard]] std::optional<Objective> parse_objective(std::string_view name);

// The two sweeps' latencies over the workloads both timed, each the geometric or the
// arithmetic mean as `objective` says, in milliseconds. nullopt when they share no timed
// workload.
struct PairedLatency {
  double baseline_ms = 0;
  double candidate_ms = 0;
};
[[nodiscard]] std::optional<PairedLatency> paired_latency(const Sweep& baseline, const Sweep& candidate,
                                                          Objective objective);

// baseline / candidate of paired_latency: above 1 when the candidate is faster.
[[nodiscard]] std::optional<double> paired_speedup(const Sweep& baseline, const Sweep& candidate,
                                                   Objective objective = Objective::geomean);

}  // namespace kh::control
