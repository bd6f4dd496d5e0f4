#include "report/scoring.h"

#include <array>
#include <cmath>

namespace kh::report {
namespace {

constexpr std::array kSweep = {0.0, 0.5, 0.8, 1.0, 1.2, 1.5, 2.0, 3.0, 5.0, 10.0};

double share(std::size_t count, std::size_t total) {
  return total == 0 ? 0.0 : static_cast<double>(count) / static_cast<double>(total);
}

bool fast_at(const WorkloadOutcome& w, double p) {
  if (!w.passed()) return false;
  const auto s = w.speedup();
  return s ? *s > p : p == 0.0;
}

}  // namespace

std::optional<double> WorkloadOutcome::speedup() const noexcept {
  if (!passed() || !latency_ms || !baseline_ms || *latency_ms <= 0 || *baseline_ms <= 0) return std::nullopt;
  return *baseline_ms / *latency_ms;
}

std::span<const double> default_p_sweep() noexcept { return kSweep; }

std::optional<double> geometric_mean(std::span<const double> values) {
  double log_sum = 0;
  std::size_t n = 0;
  for (double v : values) {
    if (!(v > 0)) continue;  // a zero or negative value has no logarithm; it is not data
    log_sum += std::log(v);
    ++n;
  }
  if (n == 0) return std::nullopt;
  return std::exp(log_sum / static_cast<double>(n));
}

Score score_outcomes(std::span<const WorkloadOutcome> outcomes, std::span<const double> sweep) {
  Score s;
  s.total = outcomes.size();
  double speedup_sum = 0;
  std::size_t wins = 0;
  std::vector<double> fractions;
  for (const WorkloadOutcome& w : outcomes) {
    if (!w.passed()) continue;
    ++s.passed;
    if (w.sol_fraction) fractions.push_back(*w.sol_fraction);
    const auto sp = w.speedup();
    if (!sp) continue;
    ++s.with_speedup;
    speedup_sum += *sp;
    if (*sp > 1.0) ++wins;
  }
  s.mean_speedup = s.with_speedup == 0 ? 0.0 : speedup_sum / static_cast<double>(s.with_speedup);
  const bool all_passed = s.total > 0 && s.passed == s.total;
  s.contest = all_passed ? s.mean_speedup : 0.0;
  s.win_rate = share(wins, s.total);
  s.fast_p.reserve(sweep.size());
  for (double p : sweep) {
    std::size_t n = 0;
    for (const WorkloadOutcome& w : outcomes) n += fast_at(w, p) ? 1 : 0;
    s.fast_p.push_back(share(n, s.total));
  }
  s.sol_geomean = geometric_mean(fractions);
  return s;
}

}  // namespace kh::report
