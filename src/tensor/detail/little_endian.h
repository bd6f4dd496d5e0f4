// An 8-byte little-endian word read from unaligned host memory: the word order both
// content hashes (fast_hash.h, chunked_hash.h) define themselves by.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kh::detail {

[[nodiscard]] inline std::uint64_t read_le64(const std::byte* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

}  // namespace kh::detail
