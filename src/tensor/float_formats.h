// Bit-exact conversions between float32 and the narrow float formats of FlashInfer-Trace.
//
// Every encoder rounds to nearest, ties to even, and handles subnormals exactly in both
// directions. Decoding is exact (every narrow value is a float32). Out-of-range policy
// follows what PyTorch and ml_dtypes do for a plain cast, so that a reference computed
// in Python and a harness-side cast agree bit for bit:
//
//   format          overflow (after rounding)     NaN input          infinity input
//   float16         +-inf                         quiet NaN, sign    +-inf
//   bfloat16        +-inf                         quiet NaN, sign    +-inf
//   float8_e4m3fn   NaN (|x| > 464, the midpoint  NaN (S.1111.111)   NaN
//                   between 448 and the "480"
//                   that would be the NaN code)
//   float8_e5m2     +-inf (|x| >= 61440)          quiet NaN, sign    +-inf
//   float4_e2m1     saturates to +-6              +-6 by sign bit    +-6
//
// float4_e2m1 has neither NaN nor infinity; the OCP MX spec leaves NaN conversion to the
// implementation, and we saturate by sign because a kernel's FP4 quantizer clamps too.
// The *_saturating fp8 encoders clamp finite overflow and infinities to +-max (NaN stays
// NaN); the input generator uses them because it clamps before casting anyway.
#pragma once

#include <cstdint>

namespace kh {

[[nodiscard]] float f16_to_float(std::uint16_t code) noexcept;
[[nodiscard]] std::uint16_t float_to_f16(float x) noexcept;

[[nodiscard]] float bf16_to_float(std::uint16_t code) noexcept;
[[nodiscard]] std::uint16_t float_to_bf16(float x) noexcept;

[[nodiscard]] float e4m3fn_to_float(std::uint8_t code) noexcept;
[[nodiscard]] std::uint8_t float_to_e4m3fn(float x) noexcept;
[[nodiscard]] std::uint8_t float_to_e4m3fn_saturating(float x) noexcept;

[[nodiscard]] float e5m2_to_float(std::uint8_t code) noexcept;
[[nodiscard]] std::uint8_t float_to_e5m2(float x) noexcept;
[[nodiscard]] std::uint8_t float_to_e5m2_saturating(float x) noexcept;

// FP4 codes use the low 4 bits; the high bits of the argument are ignored.
[[nodiscard]] float e2m1_to_float(std::uint8_t code) noexcept;
[[nodiscard]] std::uint8_t float_to_e2m1(float x) noexcept;

// Largest finite magnitudes, for clamping and tests.
inline constexpr float kF16Max = 65504.0f;
inline constexpr float kE4M3Max = 448.0f;
inline constexpr float kE5M2Max = 57344.0f;
inline constexpr float kE2M1Max = 6.0f;

}  // namespace kh
