// Summary statistics of timing samples, computed in the orchestrator from the raw
// samples a worker returns (never taken from the worker's own summary).
#pragma once

#include <span>
#include <vector>

namespace kh {

struct SampleStatistics {
  std::size_t count = 0;
  double mean = 0;
  double median = 0;
  double q1 = 0;  // 25th percentile
  double q3 = 0;  // 75th percentile
  double min = 0;
  double max = 0;
  double stdev = 0;   // sample standard deviation (n-1)
  double noise = 0;   // relative standard deviation, stdev / mean
  double ci_low = 0;  // 95% distribution-free confidence interval of the median
  double ci_high = 0;
};

// Linear-interpolated quantile (q in [0,1]) of unsorted values; 0 for no values.
[[nodiscard]] double quantile(std::span<const double> values, double q);
[[nodiscard]] double median(std::span<const double> values);
[[nodiscard]] SampleStatistics summarize(std::span<const double> values);

}  // namespace kh
