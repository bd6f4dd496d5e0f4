#include "eval/check/value_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "error/error.h"
#include "tensor/element_access.h"

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
      // Both are finite here, so a plain comparison (inlined) serves instead of fmax (a call).
      if (abs_err > c.max_abs_error) c.max_abs_error = abs_err;
      if (rel_err > c.max_rel_error) c.max_rel_error = rel_err;
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

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 16;
constexpr std::size_t kElementsPerThread = std::size_t{1} << 22;

struct ChunkResult {
  ValueComparison c;
  double first_actual = 0;
  double first_reference = 0;
};

ChunkResult compare_chunk(const HostTensor& a, const HostTensor& r, std::size_t begin, std::size_t n,
                          const Tolerance& t, std::vector<double>& va, std::vector<double>& vr) {
  va.resize(n);
  vr.resize(n);
  to_float64(a, begin, va);
  to_float64(r, begin, vr);
  return {compare_values(va, vr, t), va.empty() ? 0 : va[0], vr.empty() ? 0 : vr[0]};
}

bool same_value(double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); }

// Folds chunk `part` (starting at element `begin`) into `total`, in index order.
void merge(ValueComparison& total, const ChunkResult& part, std::size_t begin, const ChunkResult& first,
           double& abs_sum) {
  const ValueComparison& c = part.c;
  if (c.matched < c.elements && total.matched == total.elements)
    total.first_mismatch = begin + c.first_mismatch;
  total.elements += c.elements;
  total.matched += c.matched;
  total.non_finite += c.non_finite;
  total.max_abs_error = std::fmax(total.max_abs_error, c.max_abs_error);
  total.max_rel_error = std::fmax(total.max_rel_error, c.max_rel_error);
  abs_sum += c.mean_abs_error * static_cast<double>(c.elements);
  total.actual_all_zero = total.actual_all_zero && c.actual_all_zero;
  total.reference_all_zero = total.reference_all_zero && c.reference_all_zero;
  total.actual_constant =
      total.actual_constant && c.actual_constant && same_value(part.first_actual, first.first_actual);
  total.reference_constant =
      total.reference_constant && c.reference_constant && part.first_reference == first.first_reference;
}

}  // namespace

ValueComparison compare_tensors(const HostTensor& actual, const HostTensor& reference,
                                const Tolerance& tolerance) {
  if (actual.numel() != reference.numel()) {
    throw Error(fmt::format("cannot compare {} elements with {}", actual.numel(), reference.numel()));
  }
  const std::size_t n = actual.numel();
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<ChunkResult> parts(chunks);
  const auto threads = static_cast<std::size_t>(
      std::clamp<std::size_t>(n / kElementsPerThread, 1, std::max(1u, std::thread::hardware_concurrency())));
  auto work = [&](std::size_t first_chunk) {
    std::vector<double> va, vr;
    for (std::size_t k = first_chunk; k < chunks; k += threads) {
      const std::size_t begin = k * kChunk;
      parts[k] = compare_chunk(actual, reference, begin, std::min(kChunk, n - begin), tolerance, va, vr);
    }
  };
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
  }
  ValueComparison total;
  double abs_sum = 0;
  for (std::size_t k = 0; k < chunks; ++k) merge(total, parts[k], k * kChunk, parts[0], abs_sum);
  total.mean_abs_error = n == 0 ? 0 : abs_sum / static_cast<double>(n);
  return total;
}

}  // namespace kh
