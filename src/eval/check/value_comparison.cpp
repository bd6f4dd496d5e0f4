#include "eval/check/value_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "error/error.h"
#include "eval/check/detail/finite_float_comparison.h"
#include "tensor/element_access.h"
#include "tensor/float_formats.h"

namespace kh {

namespace {

bool same_non_finite(double a, double r) {
  if (std::isnan(r)) return std::isnan(a);
  return a == r;  // +-Inf must match exactly
}

// The rule over n elements read by `actual(i)` and `reference(i)`, as doubles. One loop
// for every caller, inlined per dtype, so checking widens nothing into memory; the
// flags live in locals and the relative error's division runs only where it could
// raise the maximum: outputs of tens of millions of elements are checked on every
// correctness trial and re-check.
template <class ReadActual, class ReadReference>
ValueComparison compare_range(const ReadActual& actual, const ReadReference& reference, std::size_t n,
                              const Tolerance& tolerance) {
  ValueComparison c;
  c.elements = n;
  if (n == 0) return c;
  const double first_actual = actual(0);
  const double first_reference = reference(0);
  const bool first_actual_nan = std::isnan(first_actual);
  double abs_sum = 0;
  double max_abs = 0;
  double max_rel = 0;
  std::size_t matched = 0;
  std::size_t non_finite = 0;
  std::size_t first_mismatch = n;
  bool actual_zero = true, reference_zero = true, actual_constant = true, reference_constant = true;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = actual(i);
    const double r = reference(i);
    actual_zero &= a == 0;
    reference_zero &= r == 0;
    actual_constant &= a == first_actual || (first_actual_nan && std::isnan(a));
    reference_constant &= r == first_reference;
    bool ok;
    if (!std::isfinite(r)) [[unlikely]] {
      ok = same_non_finite(a, r);
    } else if (!std::isfinite(a)) [[unlikely]] {
      ++non_finite;
      ok = false;
    } else {
      const double abs_err = std::fabs(a - r);
      const double scale = std::fabs(r) + 1e-8;  // the relative error's denominator
      abs_sum += abs_err;
      if (abs_err > max_abs) max_abs = abs_err;
      if (abs_err > max_rel * scale) max_rel = std::fmax(max_rel, abs_err / scale);
      ok = !(abs_err > tolerance.atol && abs_err / scale > tolerance.rtol);
    }
    matched += ok ? 1 : 0;
    if (!ok && first_mismatch == n) first_mismatch = i;
  }
  c.matched = matched;
  c.non_finite = non_finite;
  c.first_mismatch = first_mismatch == n ? 0 : first_mismatch;
  c.max_abs_error = max_abs;
  c.max_rel_error = max_rel;
  c.mean_abs_error = abs_sum / static_cast<double>(n);
  c.actual_all_zero = actual_zero;
  c.reference_all_zero = reference_zero;
  c.actual_constant = actual_constant;
  c.reference_constant = reference_constant;
  return c;
}

}  // namespace

ValueComparison compare_values(std::span<const double> actual, std::span<const double> reference,
                               const Tolerance& tolerance) {
  return compare_range([&](std::size_t i) { return actual[i]; }, [&](std::size_t i) { return reference[i]; },
                       actual.size(), tolerance);
}

namespace {

constexpr std::size_t kChunk = std::size_t{1} << 16;
constexpr std::size_t kElementsPerThread = std::size_t{1} << 17;

struct ChunkResult {
  ValueComparison c;
  double first_actual = 0;
  double first_reference = 0;
};

// Calls `use` with a reader of `t`'s elements as doubles, specialised for the float
// formats outputs mostly have.
template <class Use>
auto with_reader(const HostTensor& t, const Use& use) {
  const std::span<const std::byte> b = t.bytes();
  const auto u16 = [b](std::size_t i) {
    std::uint16_t v;
    std::memcpy(&v, b.data() + i * 2, 2);
    return v;
  };
  switch (t.dtype()) {
    case DType::float32:
      return use([b](std::size_t i) {
        float v;
        std::memcpy(&v, b.data() + i * 4, 4);
        return static_cast<double>(v);
      });
    case DType::bfloat16:
      return use([u16](std::size_t i) {
        // bfloat16 is the top half of a float32 (inlined here; the hottest case).
        const std::uint32_t bits = std::uint32_t{u16(i)} << 16;
        float v;
        std::memcpy(&v, &bits, 4);
        return static_cast<double>(v);
      });
    case DType::float16:
      return use([u16](std::size_t i) { return static_cast<double>(f16_to_float(u16(i))); });
    default:
      return use([b, d = t.dtype()](std::size_t i) { return read_element(d, b, i); });
  }
}

ChunkResult compare_chunk(const HostTensor& a, const HostTensor& r, std::size_t begin, std::size_t n,
                          const Tolerance& t) {
  if (n > 0 && detail::widens_exactly_to_float(a.dtype()) && detail::widens_exactly_to_float(r.dtype())) {
    if (std::optional<ValueComparison> c = detail::compare_finite_floats(a, r, begin, n, t))
      return ChunkResult{*c, read_as_double(a, begin), read_as_double(r, begin)};
  }
  return with_reader(a, [&](const auto& read_a) {
    return with_reader(r, [&](const auto& read_r) {
      const auto at_a = [&](std::size_t i) { return read_a(begin + i); };
      const auto at_r = [&](std::size_t i) { return read_r(begin + i); };
      return ChunkResult{compare_range(at_a, at_r, n, t), n == 0 ? 0 : at_a(0), n == 0 ? 0 : at_r(0)};
    });
  });
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
                                const Tolerance& tolerance, std::size_t max_threads) {
  if (actual.numel() != reference.numel()) {
    throw Error(fmt::format("cannot compare {} elements with {}", actual.numel(), reference.numel()));
  }
  const std::size_t n = actual.numel();
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<ChunkResult> parts(chunks);
  const std::size_t cores = max_threads > 0 ? max_threads : std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::clamp<std::size_t>(n / kElementsPerThread, 1, cores);
  auto work = [&](std::size_t first_chunk) {
    for (std::size_t k = first_chunk; k < chunks; k += threads) {
      const std::size_t begin = k * kChunk;
      parts[k] = compare_chunk(actual, reference, begin, std::min(kChunk, n - begin), tolerance);
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
