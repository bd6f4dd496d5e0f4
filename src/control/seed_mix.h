// A stable 64-bit mix of a seed and a name (FNV-1a, then a splitmix finaliser), so that
// a step, a round or a stage draws the same seed in every process that runs it: a
// resumed loop proposes and measures exactly as the killed one would have.
#pragma once

#include <cstdint>
#include <string_view>

namespace kh::control {

[[nodiscard]] constexpr std::uint64_t mix_seed(std::uint64_t seed, std::string_view name) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ seed;
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

}  // namespace kh::control
