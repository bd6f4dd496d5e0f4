// The contest's scoring, on plain data (docs/reports.md; FlashInfer AI Kernel Generation
// Contest): a candidate's score on a definition is the mean, over its workloads, of
// speedup = baseline latency / candidate latency, and 0 when ANY workload did not pass
// (a missing workload counts as failed). Beside it: win rate (share of workloads
// strictly faster than the baseline), fast_p (share that passed AND are more than p
// times faster, KernelBench's metric, for a sweep of p) and the geometric mean of the
// speed-of-light fractions.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kh::report {

inline constexpr const char* kPassed = "PASSED";
inline constexpr const char* kMissing = "MISSING";  // no trace of the candidate on the workload

struct WorkloadOutcome {
  std::string status = kMissing;
  std::optional<double> latency_ms;
  std::optional<double> baseline_ms;  // the baseline's latency on this workload, when known
  std::optional<double> sol_fraction;

  [[nodiscard]] bool passed() const noexcept { return status == kPassed; }
  // baseline / latency; nullopt unless passed with both latencies known and positive.
  [[nodiscard]] std::optional<double> speedup() const noexcept;
};

struct Score {
  double contest = 0;       // mean speedup, or 0 when any workload failed
  double mean_speedup = 0;  // mean over passed workloads with a speedup, failures or not
  double win_rate = 0;
  std::vector<double> fast_p;  // one per entry of the sweep
  std::optional<double> sol_geomean;
  std::size_t passed = 0;
  std::size_t total = 0;
  std::size_t with_speedup = 0;  // passed workloads whose speedup is known
};

// p = 0, 0.5, 0.8, 1, 1.2, 1.5, 2, 3, 5, 10.
[[nodiscard]] std::span<const double> default_p_sweep() noexcept;

// fast_p counts a passed workload whose speedup is unknown (no baseline latency) only at
// p = 0, where fast_0 is the share of workloads that are correct.
[[nodiscard]] Score score_outcomes(std::span<const WorkloadOutcome> outcomes, std::span<const double> sweep);

[[nodiscard]] std::optional<double> geometric_mean(std::span<const double> values);

}  // namespace kh::report
