// The round's "profile -> diagnose" step: the workloads grouped into regimes
// (profile/shape_regimes.h), and for each regime the evidence at its representative
// taken from the paired baseline sweep of the retained best (latency, speed-of-light
// floor and fraction), read by the diagnosis rule table (profile/diagnosis_rules.h).
// The sweep is the measurement the round makes anyway, so the diagnosis costs no
// extra evaluation; hardware counters come from `kharness profile` where ncu is present.
#pragma once

#include <vector>

#include "control/hypothesis_choice.h"
#include "control/sweep.h"
#include "eval/evaluator.h"
#include "profile/shape_regimes.h"

namespace kh::control {

// Regimes of the target's workloads, with costs from its speed-of-light model (or the
// product of the var axes when it has none).
[[nodiscard]] RegimePlan plan_regimes(const EvaluationTarget& target);

// The representatives' indices, one per regime, in the plan's order, without repeats.
[[nodiscard]] std::vector<std::size_t> gate_workloads(const RegimePlan& plan);

[[nodiscard]] std::vector<RegimeDiagnosis> diagnose_regimes(const EvaluationTarget& target,
                                                            const RegimePlan& plan, const Sweep& baseline);

[[nodiscard]] nlohmann::ordered_json regimes_json(const RegimePlan& plan,
                                                  const std::vector<RegimeDiagnosis>& diagnoses);

}  // namespace kh::control
