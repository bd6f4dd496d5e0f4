// Whether a candidate runs faster on an input set it has already been called on than on
// the same set the first time: the mark of outputs cached across calls.
//
// A workload whose input sets are too big for one per iteration (the budget of
// workload_evaluation.cpp: 2 GiB on CUDA) gives the timed loop fewer sets than calls, so
// sets come round again. The warm-ups use set 0 alone and the timed calls go round from
// set 0 (timing_plan.h), so every other set's first timed call is its first call of all,
// and never the loop's first timed call: on the H200 that one took up to 2.3 times as
// long as the next for an honest kernel of 20 short launches. The check pairs each set's later calls with its first, on the same data at the
// same address: a kernel that computes takes as long both times (the cache is flushed
// before every timed call), while one that kept its answer (keyed on pointers or on
// contents) copies it and takes a fraction. On an H200 a top-k indexer that cached by
// pointer took 19-21 us on seen sets against 340-450 us on new ones, the real kernel
// 91-117 us on both.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "eval/wire/timed_result.h"

namespace kh {

class InputReuseCheck {
 public:
  // Seen calls faster than this share of the first call's time, in the median over
  // sets, are cached answers. Run-to-run noise on one set is a few percent.
  static constexpr double kMaxRatio = 0.8;
  // Fewer sets with both a first and a later call than this decide nothing.
  static constexpr std::size_t kMinSets = 3;

  // One timing trial's samples, in call order; `warm_set` is the set the warm-ups
  // called (so none of its timed calls is a first), or none without warm-ups (then the
  // first sample's set is left out).
  void add_trial(const std::vector<TimedSample>& samples, std::optional<int> warm_set);

  // The median over sets of (median of a set's later calls / its first call), when
  // enough sets had both.
  [[nodiscard]] std::optional<double> median_ratio() const;
  // The reason to reject, when seen sets ran faster than kMaxRatio allows.
  [[nodiscard]] std::optional<std::string> verdict() const;

 private:
  std::vector<double> ratios_;  // one per (trial, set) with a first and a later call
};

}  // namespace kh
