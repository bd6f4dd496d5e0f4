#include "eval/check/value_comparison.h"

#include <cmath>

namespace kh {

namespace {

bool same_non_finite(double a, double r) {
  if (std::isnan(r)) return std::isnan(a);
  return a == r;  // +-Inf must match exactly
}

}  // namespace

ValueComparison compare_values(std::span<const double> actual, std::span<const double> reference,
                               const Tolerance& tolerance) {
  ValueComparison c;
  c.elements = actual.size();
  double abs_sum = 0;
  bool mismatch_seen = false;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i];
    const double r = reference[i];
    c.actual_all_zero = c.actual_all_zero && a == 0;
    c.reference_all_zero = c.reference_all_zero && r == 0;
    c.actual_constant = c.actual_constant && (a == actual[0] || (std::isnan(a) && std::isnan(actual[0])));
    c.reference_constant = c.reference_constant && r == reference[0];
    bool ok;
    if (!std::isfinite(r)) {
      ok = same_non_finite(a, r);
    } else if (!std::isfinite(a)) {
      ++c.non_finite;
      ok = false;
    } else {
      const double abs_err = std::fabs(a - r);
      const double rel_err = abs_err / (std::fabs(r) + 1e-8);
      abs_sum += abs_err;
      c.max_abs_error = std::fmax(c.max_abs_error, abs_err);
      c.max_rel_error = std::fmax(c.max_rel_error, rel_err);
      ok = !(abs_err > tolerance.atol && rel_err > tolerance.rtol);
    }
    if (ok) {
      ++c.matched;
    } else if (!mismatch_seen) {
      mismatch_seen = true;
      c.first_mismatch = i;
    }
  }
  c.mean_abs_error = c.elements == 0 ? 0 : abs_sum / static_cast<double>(c.elements);
  return c;
}

}  // namespace kh
