// What host code and CUDA device code share to compute the same bits: the function
// qualifier, bit casts and the high half of a 64-bit product. Generators built on these
// (the *_steps.h headers beside this one) are compiled by g++ for the host twin and by
// nvcc for the device, and give identical bytes as long as they use only integer
// operations and IEEE + - * / and sqrt, and no contraction into fused multiply-adds
// (the translation units that include them are compiled with -ffp-contract=off and
// -fmad=false; see docs/evaluation.md, "Inputs made on the device").
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define KH_PORTABLE __host__ __device__ __forceinline__
#else
#define KH_PORTABLE inline
#endif

namespace kh::detail {

KH_PORTABLE std::uint32_t bits_of(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

KH_PORTABLE float float_of(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

KH_PORTABLE std::uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

KH_PORTABLE double double_of(std::uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

// The high 64 bits of a * b: Lemire's multiply-shift maps a random word onto [0, n).
KH_PORTABLE std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  __extension__ typedef unsigned __int128 U128;  // GCC and Clang; no standard 128-bit type
  return static_cast<std::uint64_t>((static_cast<U128>(a) * b) >> 64);
#endif
}

// Uniform in [0, n) from a random word (bias below n / 2^64).
KH_PORTABLE std::uint64_t below(std::uint64_t word, std::uint64_t n) { return mul_high(word, n); }

template <class T>
KH_PORTABLE T min_of(T a, T b) {
  return b < a ? b : a;
}
template <class T>
KH_PORTABLE T max_of(T a, T b) {
  return a < b ? b : a;
}

}  // namespace kh::detail
