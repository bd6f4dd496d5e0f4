#include "report/svg/scale.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kh::report::svg {
namespace {

// The 1-2-5 step that cuts the span into about `parts` pieces.
double nice_step(double span, int parts) {
  const double raw = span / parts;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10.0 * magnitude;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  [[nodiscard]] bool empty() const { return lo > hi; }
};

Range range_of(std::span<const double> values, bool positive_only) {
  Range r;
  for (double v : values) {
    if (!std::isfinite(v) || (positive_only && v <= 0)) continue;
    r.lo = std::min(r.lo, v);
    r.hi = std::max(r.hi, v);
  }
  return r;
}

}  // namespace

Scale::Scale(ScaleKind kind, double lo, double hi, double from, double to)
    : kind_(kind), lo_(lo), hi_(hi), from_(from), to_(to) {}

Scale Scale::fit(ScaleKind kind, std::span<const double> values, double from, double to, bool include_zero) {
  if (kind == ScaleKind::log) {
    const Range r = range_of(values, true);
    if (r.empty()) return Scale(kind, 1, 10, from, to);
    double lo = std::pow(10.0, std::floor(std::log10(r.lo)));
    double hi = std::pow(10.0, std::ceil(std::log10(r.hi)));
    if (hi <= lo) hi = lo * 10;
    return Scale(kind, lo, hi, from, to);
  }
  Range r = range_of(values, false);
  if (r.empty()) return Scale(kind, 0, 1, from, to);
  if (include_zero) {
    r.lo = std::min(r.lo, 0.0);
    r.hi = std::max(r.hi, 0.0);
  }
  if (r.hi == r.lo) r.hi = r.lo + (r.lo == 0 ? 1 : std::abs(r.lo));
  const double step = nice_step(r.hi - r.lo, 5);
  return Scale(kind, std::floor(r.lo / step) * step, std::ceil(r.hi / step) * step, from, to);
}

double Scale::operator()(double v) const {
  double t = 0;
  if (kind_ == ScaleKind::log) {
    t = v > 0 ? (std::log10(v) - std::log10(lo_)) / (std::log10(hi_) - std::log10(lo_)) : 0.0;
  } else {
    t = (v - lo_) / (hi_ - lo_);
  }
  return from_ + std::clamp(t, 0.0, 1.0) * (to_ - from_);
}

bool Scale::contains(double v) const noexcept {
  const double eps = (hi_ - lo_) * 1e-9;
  return v >= lo_ - eps && v <= hi_ + eps && (kind_ == ScaleKind::linear || v > 0);
}

std::vector<double> Scale::ticks() const {
  std::vector<double> out;
  if (kind_ == ScaleKind::linear) {
    const double step = nice_step(hi_ - lo_, 5);
    for (double v = lo_; v <= hi_ + step * 1e-6; v += step) out.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
    return out;
  }
  const int first = static_cast<int>(std::lround(std::log10(lo_)));
  const int last = static_cast<int>(std::lround(std::log10(hi_)));
  const bool fine = last - first <= 2;
  for (int e = first; e <= last; ++e) {
    const double base = std::pow(10.0, e);
    out.push_back(base);
    if (!fine || e == last) continue;
    out.push_back(2 * base);
    out.push_back(5 * base);
  }
  return out;
}

std::string Scale::tick_label(double v) { return fmt::format("{:g}", v); }

}  // namespace kh::report::svg
