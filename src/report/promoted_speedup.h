// The one speedup kharness reports for a promotion (docs/controller.md, "The reported
// speedup"): the loop's baseline latency over the promoted candidate's, over every workload
// (the geometric mean of the ratios, or with the loop's objective "mean" the ratio of the
// summed latencies), both measured in the promotion's round, in fresh workers, with
// the confirmation protocol (robust when the loop times with official). The loop stores it
// in the decision's evidence under "speedup"; the loop's summary, `kharness report` and
// the dashboard read it from there and print it with format_speedup, so all three show the
// same figure. The gate figures (official paired repeats against the best it replaced)
// travel beside it as evidence and are never printed as the speedup.
//
// The leaderboard's contest score is a different figure (the mean, over workloads, of the
// latest traces' speedups over the baseline solution, 0 if any failed) and is always
// labelled "contest score".
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kh::report {

struct WorkloadSpeedup {
  std::string uuid;
  double baseline_ms = 0;
  double candidate_ms = 0;
};

struct PromotedSpeedup {
  double over_baseline = 0;           // THE figure
  std::string baseline;               // content id of the loop's baseline (its start)
  std::string protocol;               // the confirmation protocol the figure was measured with
  std::string objective = "geomean";  // how the workloads weigh in it: geomean or mean
  std::int64_t baseline_run = 0;
  std::int64_t candidate_run = 0;
  double noise = 0;  // max(noise floor, both sweeps' median noise)
  std::vector<WorkloadSpeedup> workloads;
  // Evidence beside it: the confirmation against the best it replaced (the same sweeps on
  // a loop's first promotion) and the official paired repeats the promotion rule judged.
  std::optional<double> over_replaced;
  std::vector<std::optional<double>> gate_repeats;

  [[nodiscard]] nlohmann::ordered_json json() const;
  // The record in a decision's evidence ("speedup"); nullopt when the decision has none
  // (not a promotion, or recorded before kharness kept it). Never throws.
  [[nodiscard]] static std::optional<PromotedSpeedup> from_evidence(const nlohmann::ordered_json& evidence);
};

// "1.081x": how every place prints a speedup, so the same figure reads the same.
[[nodiscard]] std::string format_speedup(double speedup);
// "1.081x (mean latency)" where the loop weighed the workloads by latency (objective "mean"),
// "1.081x" under the geometric mean: the promotion and the round tables say it alike.
[[nodiscard]] std::string format_speedup(double speedup, std::string_view objective);

}  // namespace kh::report
