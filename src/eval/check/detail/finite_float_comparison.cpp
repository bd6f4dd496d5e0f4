#include "eval/check/detail/finite_float_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "error/error.h"
#include "tensor/float_formats.h"

namespace kh::detail {

namespace {

// Small enough that both float buffers stay in L1, large enough to amortise a block; a
// multiple of the lane count.
constexpr std::size_t kBlock = 2048;
// Lanes in explicit vectors of x86-64's baseline width (GCC's vector extensions; wider
// ones are split lane by lane where AVX is not enabled): each lane adds and takes
// maxima in its own order, so nothing needs reassociating, and a comparison gives a
// lane mask of -1 or 0.
using Doubles = double __attribute__((vector_size(16)));
using Masks = std::int64_t __attribute__((vector_size(16)));
using Words = std::uint32_t __attribute__((vector_size(16)));
using HalfWords = std::uint16_t __attribute__((vector_size(8)));
using Floats = float __attribute__((vector_size(16)));
constexpr std::size_t kLanes = sizeof(Doubles) / sizeof(double);
// Blocks are padded to whole vectors of floats, which also fills whole lanes.
constexpr std::size_t kPadTo = sizeof(Words) / sizeof(float);
static_assert(kPadTo % kLanes == 0 && kBlock % kPadTo == 0);

// f16_to_float (tensor/float_formats.h) on four codes at once, in the same bit steps.
// Inf and NaN come out as float Inf and NaN (payloads aside), which all_finite() then
// sends to the scalar rule.
[[gnu::always_inline]] inline Floats f16_to_floats(Words code) {
  constexpr std::uint32_t kExponent = 0x7C00U << 13;
  Words bits = (code & 0x7FFFU) << 13;
  const Words exponent = bits & kExponent;
  bits += (127U - 15U) << 23;
  // A comparison gives -1 (all bits) where it holds.
  const auto special = reinterpret_cast<Words>(exponent == kExponent);
  const auto subnormal = reinterpret_cast<Words>(exponent == 0);
  bits += special & ((128U - 16U) << 23);
  const Floats renormalised =
      reinterpret_cast<Floats>(bits + (1U << 23)) - reinterpret_cast<Floats>(Words{} + (113U << 23));
  bits = (subnormal & reinterpret_cast<Words>(renormalised)) | (~subnormal & bits);
  return reinterpret_cast<Floats>(bits | ((code & 0x8000U) << 16));
}

void widen(const HostTensor& t, std::size_t begin, std::size_t n, float* out) {
  const std::byte* p = t.bytes().data();
  switch (t.dtype()) {
    case DType::float32:
      std::memcpy(out, p + begin * 4, n * 4);
      return;
    case DType::bfloat16: {
      // bfloat16 is float32's top half.
      std::size_t i = 0;
      for (; i + 4 <= n; i += 4) {
        HalfWords v;
        std::memcpy(&v, p + (begin + i) * 2, sizeof v);
        const Words bits = __builtin_convertvector(v, Words) << 16;
        std::memcpy(out + i, &bits, sizeof bits);
      }
      for (; i < n; ++i) {
        std::uint16_t v;
        std::memcpy(&v, p + (begin + i) * 2, 2);
        out[i] = bf16_to_float(v);
      }
      return;
    }
    case DType::float16: {
      std::size_t i = 0;
      for (; i + 4 <= n; i += 4) {
        HalfWords v;
        std::memcpy(&v, p + (begin + i) * 2, sizeof v);
        const Floats f = f16_to_floats(__builtin_convertvector(v, Words));
        std::memcpy(out + i, &f, sizeof f);
      }
      for (; i < n; ++i) {
        std::uint16_t v;
        std::memcpy(&v, p + (begin + i) * 2, 2);
        out[i] = f16_to_float(v);
      }
      return;
    }
    default:
      throw Error(std::string("compare_finite_floats: ") + std::string(dtype_name(t.dtype())) +
                  " is not a float format");
  }
}

// An all-ones exponent is NaN or Inf; tested on the bits, four words at a time. n is a
// multiple of four.
bool all_finite(const float* x, std::size_t n) {
  constexpr std::uint32_t kExponent = 0x7f800000U;
  Words special = {};
  for (std::size_t i = 0; i < n; i += 4) {
    Words w;
    std::memcpy(&w, x + i, sizeof w);
    special |= (w & kExponent) == kExponent;
  }
  return (special[0] | special[1] | special[2] | special[3]) == 0;
}

struct Lanes {
  Doubles abs_sum = {};
  Doubles max_abs = {};
  Doubles max_rel = {};
  // Counts of the lanes' elements; a mask's -1 is subtracted to count one.
  Masks matched = {};
  Masks actual_nonzero = {};
  Masks reference_nonzero = {};
  Masks actual_differs = {};
  Masks reference_differs = {};
};

struct Limits {
  double atol, rtol, first_actual, first_reference;
};

[[gnu::always_inline]] inline Doubles widened(const float* x) { return Doubles{x[0], x[1]}; }

[[gnu::always_inline]] inline Doubles magnitude(Doubles v) {
  constexpr std::int64_t kNoSign = 0x7fffffffffffffffLL;
  return reinterpret_cast<Doubles>(reinterpret_cast<Masks>(v) & kNoSign);
}

// The larger of each pair of lanes, in bit operations: the vector ?: is lowered lane by
// lane without SSE4.1's blend.
[[gnu::always_inline]] inline Doubles larger(Doubles x, Doubles y) {
  const Masks bigger = x > y;
  return reinterpret_cast<Doubles>((bigger & reinterpret_cast<Masks>(x)) |
                                   (~bigger & reinterpret_cast<Masks>(y)));
}

// The rule on kLanes finite pairs.
[[gnu::always_inline]] inline void add(Lanes& l, Doubles a, Doubles r, const Limits& m) {
  const Doubles e = magnitude(a - r);
  const Doubles rel = e / (magnitude(r) + 1e-8);
  l.abs_sum += e;
  l.max_abs = larger(e, l.max_abs);
  l.max_rel = larger(rel, l.max_rel);
  l.matched -= ~((e > m.atol) & (rel > m.rtol));
  l.actual_nonzero -= a != 0;
  l.reference_nonzero -= r != 0;
  l.actual_differs -= a != m.first_actual;
  l.reference_differs -= r != m.first_reference;
}

// n is a multiple of kLanes: the caller pads a block's tail with zero pairs and takes
// them back out of the counts.
void add_block(Lanes& l, const float* a, const float* r, std::size_t n, const Limits& m) {
  for (std::size_t i = 0; i < n; i += kLanes) add(l, widened(a + i), widened(r + i), m);
}

std::size_t first_failure(const float* a, const float* r, std::size_t n, const Limits& m) {
  for (std::size_t i = 0; i < n; ++i) {
    const double e = std::fabs(static_cast<double>(a[i]) - r[i]);
    if (e > m.atol && e / (std::fabs(static_cast<double>(r[i])) + 1e-8) > m.rtol) return i;
  }
  return n;
}

std::uint64_t lane_sum(Masks x) {
  std::uint64_t s = 0;
  for (std::size_t k = 0; k < kLanes; ++k) s += static_cast<std::uint64_t>(x[k]);
  return s;
}

double lane_sum(Doubles x) {
  double s = 0;
  for (std::size_t k = 0; k < kLanes; ++k) s += x[k];
  return s;
}

double lane_max(Doubles x) {
  double m = 0;
  for (std::size_t k = 0; k < kLanes; ++k) m = x[k] > m ? x[k] : m;
  return m;
}

}  // namespace

bool widens_exactly_to_float(DType dtype) {
  return dtype == DType::float32 || dtype == DType::bfloat16 || dtype == DType::float16;
}

std::optional<ValueComparison> compare_finite_floats(const HostTensor& actual, const HostTensor& reference,
                                                     std::size_t begin, std::size_t n,
                                                     const Tolerance& tolerance) {
  ValueComparison c;
  c.elements = n;
  if (n == 0) return c;
  alignas(64) float a[kBlock];
  alignas(64) float r[kBlock];
  Lanes lanes;
  Limits limits{tolerance.atol, tolerance.rtol, 0, 0};
  std::size_t first_mismatch = n;
  std::uint64_t padding = 0;  // zero pairs after the last element, to fill the last vector
  for (std::size_t done = 0; done < n; done += kBlock) {
    const std::size_t m = std::min(kBlock, n - done);
    widen(actual, begin + done, m, a);
    widen(reference, begin + done, m, r);
    const std::size_t padded = (m + kPadTo - 1) / kPadTo * kPadTo;
    std::fill(a + m, a + padded, 0.0F);
    std::fill(r + m, r + padded, 0.0F);
    if (!all_finite(a, padded) || !all_finite(r, padded)) return std::nullopt;
    if (done == 0) {
      limits.first_actual = a[0];
      limits.first_reference = r[0];
    }
    padding += padded - m;
    const std::uint64_t matched_before = lane_sum(lanes.matched);
    add_block(lanes, a, r, padded, limits);
    if (first_mismatch == n && lane_sum(lanes.matched) - matched_before < padded)
      first_mismatch = done + first_failure(a, r, m, limits);
  }
  // A zero pair matches, adds no error and is not nonzero; it differs from a nonzero first.
  c.matched = lane_sum(lanes.matched) - padding;
  c.first_mismatch = first_mismatch == n ? 0 : first_mismatch;
  c.max_abs_error = lane_max(lanes.max_abs);
  c.max_rel_error = lane_max(lanes.max_rel);
  c.mean_abs_error = lane_sum(lanes.abs_sum) / static_cast<double>(n);
  c.actual_all_zero = lane_sum(lanes.actual_nonzero) == 0;
  c.reference_all_zero = lane_sum(lanes.reference_nonzero) == 0;
  c.actual_constant = lane_sum(lanes.actual_differs) == (limits.first_actual != 0 ? padding : 0);
  c.reference_constant = lane_sum(lanes.reference_differs) == (limits.first_reference != 0 ? padding : 0);
  return c;
}

}  // namespace kh::detail
