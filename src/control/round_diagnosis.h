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
#include "profile/profile_session.h"
#include "profile/shape_regimes.h"

namespace kh::control {

// The representatives' indices, one per regime, in the plan's order, without repeats.
[[nodiscard]] std::vector<std::size_t> gate_workloads(const profile::RegimePlan& plan);

[[nodiscard]] std::vector<RegimeDiagnosis> diagnose_regimes(const EvaluationTarget& target,
                                                            const profile::RegimePlan& plan,
                                                            const Sweep& baseline);

[[nodiscard]] nlohmann::ordered_json regimes_json(const profile::RegimePlan& plan,
                                                  const std::vector<RegimeDiagnosis>& diagnoses);

}  // namespace kh::control
