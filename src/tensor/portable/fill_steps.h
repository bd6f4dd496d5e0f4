// The default input rule of tensor/random_fill.h, element by element, as portable
// steps: the host fill (random_fill.cpp) and the CUDA fill (device/cuda_random_fill.cu)
// both store generate_element<Code>(rule, tables, i) at element i, so a tensor filled on
// the device holds the bytes the host twin computes. C++17 and free of the standard
// library beyond <cstdint>, because nvcc compiles it for the device.
#pragma once

#include <cstdint>

#include "tensor/counter_rng.h"
#include "tensor/portable/float_encode_steps.h"
#include "tensor/portable/normal_steps.h"
#include "tensor/portable/portable.h"

namespace kh::detail {

// DType's values (tensor/dtype.h, which is C++20 and not for the device); random_fill.cpp
// checks that they agree.
namespace dtype_code {
inline constexpr std::uint8_t float32 = 0, float16 = 1, bfloat16 = 2, float8_e4m3fn = 3, float8_e5m2 = 4,
                              float4_e2m1 = 5, int64 = 6, int32 = 7, int16 = 8, int8 = 9, uint8 = 10,
                              boolean = 11;
}

enum class FillKind : std::uint8_t { normal, uniform_int, boolean };

// What one tensor is filled with. Plain data: it travels to the device by value.
struct FillRule {
  FillKind kind = FillKind::normal;
  std::uint64_t key = 0;        // the stream of the draws
  std::uint64_t retry_key = 0;  // normal: the ziggurat's retry stream
  double mean = 0.0;            // normal: mean + std * z
  double std = 1.0;
  std::int64_t lo = 0;     // uniform_int: [lo, lo + span)
  std::uint64_t span = 1;  // > 0
};

KH_PORTABLE double clamp_double(double v, double lo, double hi) { return v < lo ? lo : (hi < v ? hi : v); }

KH_PORTABLE std::int64_t uniform_value(const FillRule& r, std::uint64_t i) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(r.lo) + below(random_word(r.key, i), r.span));
}

// The float a float element is encoded from: normal(mean, std), computed in double and
// rounded once (fp8: z clamped to [-2, 2] first; fp4: the value clamped to [-6, 6]), or
// an integer draw rounded to float (through double, as element_access writes integers).
template <std::uint8_t Code>
KH_PORTABLE float float_value(const FillRule& r, const ZigguratTables& t, std::uint64_t i) {
  if (r.kind == FillKind::uniform_int) return static_cast<float>(static_cast<double>(uniform_value(r, i)));
  const double z = normal_at(t, r.key, r.retry_key, i);
  if constexpr (Code == dtype_code::float8_e4m3fn || Code == dtype_code::float8_e5m2) {
    return static_cast<float>(r.mean + r.std * clamp_double(z, -2.0, 2.0));
  } else if constexpr (Code == dtype_code::float4_e2m1) {
    const auto v = static_cast<float>(r.mean + r.std * z);
    return v < -6.0f ? -6.0f : (6.0f < v ? 6.0f : v);
  } else {
    return static_cast<float>(r.mean + r.std * z);
  }
}

template <std::uint8_t Code>
struct Stored;  // the storage type of one element (fp4: one code in a byte's low nibble)
template <>
struct Stored<dtype_code::float32> {
  using type = float;
};
template <>
struct Stored<dtype_code::float16> {
  using type = std::uint16_t;
};
template <>
struct Stored<dtype_code::bfloat16> {
  using type = std::uint16_t;
};
template <>
struct Stored<dtype_code::float8_e4m3fn> {
  using type = std::uint8_t;
};
template <>
struct Stored<dtype_code::float8_e5m2> {
  using type = std::uint8_t;
};
template <>
struct Stored<dtype_code::float4_e2m1> {
  using type = std::uint8_t;
};
template <>
struct Stored<dtype_code::int64> {
  using type = std::int64_t;
};
template <>
struct Stored<dtype_code::int32> {
  using type = std::int32_t;
};
template <>
struct Stored<dtype_code::int16> {
  using type = std::int16_t;
};
template <>
struct Stored<dtype_code::int8> {
  using type = std::int8_t;
};
template <>
struct Stored<dtype_code::uint8> {
  using type = std::uint8_t;
};
template <>
struct Stored<dtype_code::boolean> {
  using type = std::uint8_t;
};

// Element i of a tensor of dtype Code under rule r.
template <std::uint8_t Code>
KH_PORTABLE typename Stored<Code>::type generate_element(const FillRule& r, const ZigguratTables& t,
                                                         std::uint64_t i) {
  using T = typename Stored<Code>::type;
  if constexpr (Code == dtype_code::float32) {
    return float_value<Code>(r, t, i);
  } else if constexpr (Code == dtype_code::float16) {
    return encode_f16(float_value<Code>(r, t, i));
  } else if constexpr (Code == dtype_code::bfloat16) {
    return encode_bf16(float_value<Code>(r, t, i));
  } else if constexpr (Code == dtype_code::float8_e4m3fn) {
    return encode_e4m3(float_value<Code>(r, t, i), r.kind == FillKind::normal);
  } else if constexpr (Code == dtype_code::float8_e5m2) {
    return encode_e5m2(float_value<Code>(r, t, i), r.kind == FillKind::normal);
  } else if constexpr (Code == dtype_code::float4_e2m1) {
    return encode_e2m1(float_value<Code>(r, t, i));
  } else if constexpr (Code == dtype_code::boolean) {
    return static_cast<T>(random_word(r.key, i) >> 63);
  } else {
    return static_cast<T>(uniform_value(r, i));
  }
}

// Byte j of an fp4 tensor of n elements: elements 2j (low nibble) and 2j + 1.
KH_PORTABLE std::uint8_t generate_fp4_byte(const FillRule& r, const ZigguratTables& t, std::uint64_t j,
                                           std::uint64_t n) {
  const std::uint8_t lo = generate_element<dtype_code::float4_e2m1>(r, t, 2 * j);
  const std::uint8_t hi = 2 * j + 1 < n ? generate_element<dtype_code::float4_e2m1>(r, t, 2 * j + 1) : 0;
  return static_cast<std::uint8_t>((lo & 0x0Fu) | ((hi & 0x0Fu) << 4));
}

}  // namespace kh::detail
