// The promotion rule (docs/controller.md). A contender replaces the retained best only
// when all of these hold:
//   1. paired: the retained best was measured again in this round, `repeats` times, and
//      passed N/N each time (a best that no longer passes cannot be compared with);
//   2. N/N: the contender passed every workload in every sweep;
//   3. better by more than the noise in at least `repeats` repeats: in each official
//      repeat k the paired speedup (best/contender latency, weighed by the rule's objective:
//      the geometric mean over the workloads, or the ratio of the summed latencies) exceeds
//      1 + noise, where noise is the largest of `min_noise`, the best's own drift between
//      its repeats, the contender's drift, and the median within-sweep noise of any
//      sweep compared;
//   4. confirmed: a fresh worker timing both with the other protocol (robust when the
//      repeats were official) also finds the contender faster, by more than
//      max(min_noise, the confirmation sweeps' own noise).
// Otherwise the best stays where it was. Pure: tested with synthetic sweeps.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "control/sweep.h"

namespace kh::control {

struct PromotionRule {
  int repeats = 2;                           // paired official repeats that must each show the gain
  double min_noise = 0.02;                   // the noise floor: gains below 2% are never trusted
  Objective objective = Objective::geomean;  // how the workloads weigh in every comparison
  // A batch of candidate sweeps more than this many seconds after the retained best's sweep it
  // is to be compared with (an agent's proposal, builds and other sweeps between them) is
  // compared with the best measured again right after it instead: over minutes a GPU's clocks
  // and temperature drift (on an H100, identical MoE kernels timed minutes after their
  // baseline read 2-4% slower; right after it, within 1%).
  double rebaseline_after_s = 60;

  // {repeats, min_noise[, objective][, rebaseline_after_s]}: as decisions and ablation manifests
  // record the rule. The last two are written only when they are not the defaults, so that a rule
  // reads as every record made before there was a choice (an ablation resumes only when its
  // recorded rule is the same).
  [[nodiscard]] nlohmann::ordered_json json() const;
};

struct PromotionInput {
  std::vector<Sweep> baseline;   // the retained best, repeats 1..k, this round
  std::vector<Sweep> contender;  // the contender, repeats 1..k, paired with them
  std::optional<Sweep> baseline_confirm;
  std::optional<Sweep> contender_confirm;
};

struct RepeatComparison {
  int repeat = 0;
  std::optional<double> speedup;
  bool better = false;  // speedup > 1 + noise
};

struct PromotionVerdict {
  bool promote = false;
  double noise = 0;
  std::vector<RepeatComparison> repeats;
  int better_repeats = 0;
  std::optional<double> confirm_speedup;
  double confirm_noise = 0;
  bool confirmed = false;
  std::vector<std::string> failures;  // each condition that did not hold, in rule order

  [[nodiscard]] nlohmann::ordered_json json() const;
};

[[nodiscard]] PromotionVerdict judge_promotion(const PromotionInput& input, const PromotionRule& rule = {});

}  // namespace kh::control
