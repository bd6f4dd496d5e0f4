#include "tensor/fast_hash.h"

#include <bit>
#include <cstring>

#include "tensor/counter_rng.h"

namespace kh {

namespace {

constexpr std::uint64_t kMul1 = 0x9E3779B97F4A7C15ull;
constexpr std::uint64_t kMul2 = 0xC6A4A7935BD1E995ull;

std::uint64_t read_le64(const std::byte* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

std::uint64_t absorb(std::uint64_t acc, std::uint64_t word) noexcept {
  return std::rotl(acc + word * kMul1, 29) * kMul2;
}

}  // namespace

std::uint64_t hash_bytes(std::span<const std::byte> bytes, std::uint64_t seed) noexcept {
  const std::byte* p = bytes.data();
  std::size_t n = bytes.size();
  std::uint64_t lane[4] = {seed + 1, seed ^ kMul1, seed + kMul2, seed - kMul1};
  while (n >= 32) {
    for (int k = 0; k < 4; ++k) lane[k] = absorb(lane[k], read_le64(p + 8 * k));
    p += 32;
    n -= 32;
  }
  std::uint64_t h = mix64(bytes.size() ^ kMul2);
  for (std::uint64_t l : lane) h = mix64(h ^ l) * kMul1;
  while (n >= 8) {
    h = absorb(h, read_le64(p));
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    std::byte tail[8] = {};
    std::memcpy(tail, p, n);
    h = absorb(h, read_le64(tail) ^ (std::uint64_t{n} << 59));
  }
  return mix64(h);
}

}  // namespace kh
