// Judges an ablation's final head-to-head (report/head_to_head.h) from its sweeps: per
// arm the speedup of its best over the start, per pair of arms the ratio of their bests,
// each per pass and as the geometric mean over the passes, with noise and a verdict.
// Pure: tested with synthetic sweeps.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "control/sweep.h"
#include "report/head_to_head.h"

namespace kh::control {

struct HeadToHeadInput {
  std::string start;                                      // content id
  std::vector<std::pair<std::string, std::string>> arms;  // arm name, content id of its best
  std::vector<std::map<std::string, Sweep>> passes;       // per pass: content id -> its sweep
  double min_noise = 0.02;
};

[[nodiscard]] report::HeadToHead judge_head_to_head(const HeadToHeadInput& input);

// a against b from per-pass ratios (above 1: a faster): faster when every pass is above
// 1 + noise, slower when every pass is below 1 / (1 + noise), same when every pass lies
// within those bounds, ambiguous otherwise (or with no pass measured).
[[nodiscard]] std::string head_to_head_verdict(std::span<const std::optional<double>> passes, double noise);

}  // namespace kh::control
