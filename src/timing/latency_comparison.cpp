#include "timing/latency_comparison.h"

#include <cmath>

namespace kh {

std::string_view comparison_name(Comparison c) noexcept {
  switch (c) {
    case Comparison::faster:
      return "faster";
    case Comparison::slower:
      return "slower";
    case Comparison::same:
      return "same";
    case Comparison::ambiguous:
      return "ambiguous";
  }
  return "ambiguous";
}

Comparison compare_latency(const SampleStatistics& candidate, const SampleStatistics& baseline,
                           double same_threshold) {
  if (candidate.count == 0 || baseline.count == 0) return Comparison::ambiguous;
  if (candidate.ci_high < baseline.ci_low) return Comparison::faster;
  if (candidate.ci_low > baseline.ci_high) return Comparison::slower;
  double relative = std::fabs(candidate.median - baseline.median) / baseline.median;
  return relative < same_threshold ? Comparison::same : Comparison::ambiguous;
}

}  // namespace kh
