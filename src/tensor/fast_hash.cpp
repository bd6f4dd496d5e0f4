#include "tensor/fast_hash.h"

#include <cstring>

#include "tensor/counter_rng.h"
#include "tensor/detail/little_endian.h"
#include "tensor/portable/chunked_hash_steps.h"

namespace kh {

namespace {

using detail::hash_absorb;
using detail::kHashMul1;
using detail::kHashMul2;
using detail::read_le64;

}  // namespace

std::uint64_t hash_bytes(std::span<const std::byte> bytes, std::uint64_t seed) noexcept {
  const std::byte* p = bytes.data();
  std::size_t n = bytes.size();
  std::uint64_t lane[4] = {seed + 1, seed ^ kHashMul1, seed + kHashMul2, seed - kHashMul1};
  while (n >= 32) {
    for (std::size_t k = 0; k < 4; ++k) lane[k] = hash_absorb(lane[k], read_le64(p + 8 * k));
    p += 32;
    n -= 32;
  }
  std::uint64_t h = mix64(bytes.size() ^ kHashMul2);
  for (std::uint64_t l : lane) h = mix64(h ^ l) * kHashMul1;
  while (n >= 8) {
    h = hash_absorb(h, read_le64(p));
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    std::byte tail[8] = {};
    std::memcpy(tail, p, n);
    h = hash_absorb(h, read_le64(tail) ^ (std::uint64_t{n} << 59));
  }
  return mix64(h);
}

}  // namespace kh
