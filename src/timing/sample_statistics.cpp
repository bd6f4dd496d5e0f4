#include "timing/sample_statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kh {

namespace {

double sorted_quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

// Order-statistic bounds for the median: the ranks j, k with P(X_(j) < m < X_(k)) >= 95%
// under the binomial(n, 1/2) law, via the normal approximation. Distribution-free, so
// it holds for the skewed, heavy-tailed latencies GPUs produce.
void median_interval(const std::vector<double>& sorted, double& low, double& high) {
  const double n = static_cast<double>(sorted.size());
  const double half_width = 1.96 * std::sqrt(n) / 2.0;
  auto clamp_rank = [&](double r) { return static_cast<std::size_t>(std::clamp(r, 0.0, n - 1)); };
  low = sorted[clamp_rank(std::floor(n / 2.0 - half_width))];
  high = sorted[clamp_rank(std::ceil(n / 2.0 + half_width) - 1)];
}

}  // namespace

double quantile(std::span<const double> values, double q) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted_quantile(sorted, q);
}

double median(std::span<const double> values) { return quantile(values, 0.5); }

SampleStatistics summarize(std::span<const double> values) {
  SampleStatistics s;
  s.count = values.size();
  if (values.empty()) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = sorted_quantile(sorted, 0.5);
  s.q1 = sorted_quantile(sorted, 0.25);
  s.q3 = sorted_quantile(sorted, 0.75);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.count);
  if (s.count > 1) {
    double ss = 0;
    for (double v : sorted) ss += (v - s.mean) * (v - s.mean);
    s.stdev = std::sqrt(ss / static_cast<double>(s.count - 1));
  }
  s.noise = s.mean > 0 ? s.stdev / s.mean : 0;
  median_interval(sorted, s.ci_low, s.ci_high);
  return s;
}

}  // namespace kh
