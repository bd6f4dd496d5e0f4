// A counter-based random generator: the n-th number of a stream is a pure function of
// (key, n), so any element of a tensor can be generated independently of the others.
// That is what makes generated inputs identical whatever the thread count or split.
//
// The construction is SplitMix64 evaluated at an arbitrary position: a Weyl sequence
// key + n * golden-ratio, passed through a 64-bit finalizer. It passes BigCrush as a
// sequential generator and costs two multiplies per 64 bits. The CUDA input generators
// compile this same header for the device (tensor/portable/portable.h).
#pragma once

#include <cstdint>

#include "tensor/portable/portable.h"

namespace kh {

[[nodiscard]] KH_PORTABLE constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

[[nodiscard]] KH_PORTABLE constexpr std::uint64_t random_word(std::uint64_t key,
                                                              std::uint64_t counter) noexcept {
  return mix64(key + counter * 0x9E3779B97F4A7C15ull);
}

// Independent streams of one seed: hashing (seed, stream) spreads their starting points
// over the whole 2^64 cycle, so streams of different seeds overlap only by vanishing chance.
[[nodiscard]] KH_PORTABLE constexpr std::uint64_t stream_key(std::uint64_t seed,
                                                             std::uint64_t stream) noexcept {
  return mix64(mix64(seed) ^ (stream * 0xD1B54A32D192ED03ull));
}

// Uniform double in [0, 1) from the top 53 bits.
[[nodiscard]] KH_PORTABLE constexpr double unit_double(std::uint64_t w) noexcept {
  return static_cast<double>(w >> 11) * 0x1.0p-53;
}

}  // namespace kh
