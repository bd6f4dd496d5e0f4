#include "eval/input_reuse_check.h"

#include <fmt/format.h>

#include <map>

#include "timing/sample_statistics.h"

namespace kh {

void InputReuseCheck::add_trial(const std::vector<TimedSample>& samples, std::optional<int> warm_set) {
  // Without warm-ups the trial's first call is its set's first: it is left out with its set,
  // since it also pays what only a loop's first timed call pays.
  if (!warm_set && !samples.empty()) warm_set = samples.front().input_set;
  std::map<int, double> first;
  std::map<int, std::vector<double>> later;
  for (const TimedSample& s : samples) {
    if (!s.valid) continue;
    if (s.input_set != warm_set && !first.contains(s.input_set)) {
      first[s.input_set] = s.ms;
    } else {
      later[s.input_set].push_back(s.ms);
    }
  }
  for (const auto& [set, ms] : first) {
    const auto seen = later.find(set);
    if (seen != later.end() && ms > 0) ratios_.push_back(median(seen->second) / ms);
  }
}

std::optional<double> InputReuseCheck::median_ratio() const {
  if (ratios_.size() < kMinSets) return std::nullopt;
  return median(ratios_);
}

std::optional<std::string> InputReuseCheck::verdict() const {
  const std::optional<double> ratio = median_ratio();
  if (!ratio || *ratio >= kMaxRatio) return std::nullopt;
  return fmt::format(
      "calls on an input set seen before took {:.0f}% of the time of the same set's first call (median over "
      "{} sets; a kernel that computes takes as long both times): outputs cached across calls",
      100 * *ratio, ratios_.size());
}

}  // namespace kh
