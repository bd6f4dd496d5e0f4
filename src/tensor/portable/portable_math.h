// exp and log from integer operations and IEEE + - * / only, so that the host twin and
// the CUDA device compute the same bits (the libraries' exp and log differ in the last
// bit now and then, and the device's are not the host's). Accurate to a few units in
// the last place of a double: plenty for generating inputs, which need determinism,
// not correct rounding. The ziggurat's tables and slow path, log-normal scales, decay
// rates and sigmoids of the input generators all go through these.
#pragma once

#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

#include "tensor/portable/portable.h"

namespace kh::detail {

// ln 2 split so that k * kLn2High is exact for |k| < 2^11 (fdlibm's split).
inline constexpr double kLn2High = 6.93147180369123816490e-01;
inline constexpr double kLn2Low = 1.90821492927058770002e-10;
inline constexpr double kInvLn2 = 1.4426950408889634;
inline constexpr double kSqrt2 = 1.4142135623730951;

// The correctly rounded square root, which IEEE requires of both sides.
KH_PORTABLE double portable_sqrt(double x) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}

// 2^k for -1074 <= k <= 1023, built from the exponent bits.
KH_PORTABLE double power_of_two(int k) {
  if (k >= -1022) return double_of(static_cast<std::uint64_t>(k + 1023) << 52);
  return double_of(std::uint64_t{1} << (k + 1074));  // subnormal
}

// e^x. Overflows to +inf above 709.78 and underflows to 0 below -745.
KH_PORTABLE double portable_exp(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return double_of(0x7FF0000000000000ull);
  if (x < -745.1332191019412) return 0.0;
  // x = k ln2 + r, |r| <= ln2 / 2 (plus rounding); k from a floor, which is exact.
  const double t = x * kInvLn2 + 0.5;
  int k = static_cast<int>(t);  // toward zero, then down: floor(t), |t| < 1100
  if (static_cast<double>(k) > t) --k;
  const auto kd = static_cast<double>(k);
  const double r = (x - kd * kLn2High) - kd * kLn2Low;
  // Taylor to r^14: the truncation is below 5e-18 for |r| <= 0.35.
  double p = 1.1470745597729725e-11;
  p = 1.6059043836821613e-10 + r * p;
  p = 2.08767569878681e-09 + r * p;
  p = 2.505210838544172e-08 + r * p;
  p = 2.755731922398589e-07 + r * p;
  p = 2.7557319223985893e-06 + r * p;
  p = 2.48015873015873e-05 + r * p;
  p = 0.0001984126984126984 + r * p;
  p = 0.001388888888888889 + r * p;
  p = 0.008333333333333333 + r * p;
  p = 0.041666666666666664 + r * p;
  p = 0.16666666666666666 + r * p;
  p = 0.5 + r * p;
  p = 1.0 + r * p;
  p = 1.0 + r * p;
  // Two steps keep 2^k representable when the result is subnormal or near the top.
  if (k < -1000) return p * power_of_two(k + 200) * power_of_two(-200);
  if (k > 1000) return p * power_of_two(k - 200) * power_of_two(200);
  return p * power_of_two(k);
}

// ln x for x > 0 (x = 0 gives -inf, x < 0 and NaN give NaN, +inf gives +inf).
KH_PORTABLE double portable_log(double x) {
  if (!(x > 0)) return x == 0 ? double_of(0xFFF0000000000000ull) : double_of(0x7FF8000000000000ull);
  std::uint64_t b = bits_of(x);
  if ((b >> 52) >= 0x7FF) return x;  // +inf
  int e = 0;
  if ((b >> 52) == 0) {  // subnormal: scale into the normal range first
    x *= power_of_two(54);
    b = bits_of(x);
    e = -54;
  }
  e += static_cast<int>(b >> 52) - 1023;
  double m = double_of((b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);  // [1, 2)
  if (m > kSqrt2) {
    m *= 0.5;
    ++e;
  }
  // ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716: the series to s^25.
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double p = 0.04;
  p = 0.043478260869565216 + s2 * p;
  p = 0.047619047619047616 + s2 * p;
  p = 0.05263157894736842 + s2 * p;
  p = 0.058823529411764705 + s2 * p;
  p = 0.06666666666666667 + s2 * p;
  p = 0.07692307692307693 + s2 * p;
  p = 0.09090909090909091 + s2 * p;
  p = 0.1111111111111111 + s2 * p;
  p = 0.14285714285714285 + s2 * p;
  p = 0.2 + s2 * p;
  p = 0.3333333333333333 + s2 * p;
  const double ln_m = 2.0 * s + 2.0 * s * (s2 * p);
  const double ed = static_cast<double>(e);
  return ed * kLn2High + (ed * kLn2Low + ln_m);
}

// e^x - 1, accurate near 0 too (where exp(x) - 1 would lose the digits).
KH_PORTABLE double portable_expm1(double x) {
  if (x > 0.5 || x < -0.5) return portable_exp(x) - 1.0;
  double p = 1.1470745597729725e-11;  // Taylor of (e^x - 1) / x, to x^14
  p = 1.6059043836821613e-10 + x * p;
  p = 2.08767569878681e-09 + x * p;
  p = 2.505210838544172e-08 + x * p;
  p = 2.755731922398589e-07 + x * p;
  p = 2.7557319223985893e-06 + x * p;
  p = 2.48015873015873e-05 + x * p;
  p = 0.0001984126984126984 + x * p;
  p = 0.001388888888888889 + x * p;
  p = 0.008333333333333333 + x * p;
  p = 0.041666666666666664 + x * p;
  p = 0.16666666666666666 + x * p;
  p = 0.5 + x * p;
  p = 1.0 + x * p;
  return x * p;
}

}  // namespace kh::detail
