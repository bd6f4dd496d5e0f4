// Seeded, reproducible input generation.
//
// Element i of a tensor filled with seed s depends only on (s, i, dtype, parameters): the
// generator is counter-based (counter_rng.h), so the bytes are identical for any thread
// count and any split of the work, and on the device: the CUDA backend fills device
// memory with the same per-element steps (detail/fill_steps.h), so a rule gives the same
// bytes wherever it runs. `threads` = 0 means "use the hardware concurrency"; tensors
// under a million elements are always filled on the calling thread.
//
// Default rule (fill_random), the one FlashInfer-Trace "random" inputs use:
//   float32/float16/bfloat16   normal(0, 1), computed in float32, then rounded to the dtype
//   float8_e4m3fn/e5m2         normal(0, 1) clamped to [-2, 2], then cast (saturating)
//   float4_e2m1                normal(0, 1) clamped to [-6, 6] (its range), then cast
//   integers                   uniform in [-128, 128) intersected with the dtype's range
//                              (uint8: [0, 128)); small so index-like inputs stay plausible
//   bool                       fair coin, stored as 0/1 bytes
#pragma once

#include <cstdint>
#include <span>

#include "tensor/host_tensor.h"
#include "tensor/portable/fill_steps.h"

namespace kh {

using FillRule = detail::FillRule;

// Rules: what fill_normal, fill_uniform_int, fill_bool and fill_random do, as data that
// a backend can apply to device memory (Backend::fill_random). They check their
// arguments as the fills do and throw kh::Error.
[[nodiscard]] FillRule normal_rule(DType dtype, std::uint64_t seed, double mean = 0.0, double std = 1.0);
[[nodiscard]] FillRule uniform_int_rule(DType dtype, std::uint64_t seed, std::int64_t lo, std::int64_t hi);
[[nodiscard]] FillRule bool_rule(DType dtype, std::uint64_t seed);
[[nodiscard]] FillRule default_rule(DType dtype, std::uint64_t seed);

// Applies `rule` to `numel` elements of `dtype` stored in `bytes` (host memory).
void fill_bytes(std::span<std::byte> bytes, DType dtype, std::size_t numel, const FillRule& rule,
                unsigned threads = 0);

// Float dtypes only (kh::Error otherwise). Values are mean + std * z, z standard normal;
// for fp8 z is first clamped to [-2, 2], for fp4 the value is clamped to [-6, 6].
void fill_normal(HostTensor& t, std::uint64_t seed, double mean = 0.0, double std = 1.0,
                 unsigned threads = 0);

// Uniform integers in [lo, hi). Integer dtypes need [lo, hi) inside their range; float
// dtypes receive the integers rounded to the dtype. kh::Error if lo >= hi or on bool.
void fill_uniform_int(HostTensor& t, std::uint64_t seed, std::int64_t lo, std::int64_t hi,
                      unsigned threads = 0);

// Bool tensors only: each element 0 or 1 with probability 1/2.
void fill_bool(HostTensor& t, std::uint64_t seed, unsigned threads = 0);

// The default rule above, for any dtype.
void fill_random(HostTensor& t, std::uint64_t seed, unsigned threads = 0);

}  // namespace kh
