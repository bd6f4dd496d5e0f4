#include "control/reported_speedup.h"

#include <algorithm>

namespace kh::control {

std::optional<report::PromotedSpeedup> reported_speedup(const Sweep& baseline, const Sweep& candidate,
                                                        const std::string& baseline_id,
                                                        const PromotionVerdict& verdict,
                                                        const PromotionRule& rule) {
  const std::optional<double> value = paired_speedup(baseline, candidate, rule.objective);
  if (!value) return std::nullopt;
  report::PromotedSpeedup s;
  s.over_baseline = *value;
  s.baseline = baseline_id;
  s.protocol = candidate.protocol;
  s.objective = std::string(objective_name(rule.objective));
  s.baseline_run = baseline.run_id;
  s.candidate_run = candidate.run_id;
  s.noise = std::max({rule.min_noise, baseline.noise(), candidate.noise()});
  for (const SweepWorkload& b : baseline.workloads) {
    for (const SweepWorkload& c : candidate.workloads) {
      const bool timed = b.latency_ms && c.latency_ms && *b.latency_ms > 0 && *c.latency_ms > 0;
      if (b.uuid == c.uuid && timed) s.workloads.push_back({b.uuid, *b.latency_ms, *c.latency_ms});
    }
  }
  s.over_replaced = verdict.confirm_speedup;
  for (const RepeatComparison& r : verdict.repeats) s.gate_repeats.push_back(r.speedup);
  return s;
}

}  // namespace kh::control
