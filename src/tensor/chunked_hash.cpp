#include "tensor/chunked_hash.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>

#include "tensor/detail/little_endian.h"
#include "tensor/portable/chunked_hash_steps.h"

namespace kh {

namespace {
using namespace detail;
}  // namespace

std::size_t hash_chunk_count(std::size_t total_bytes) noexcept {
  return (total_bytes + kHashChunkBytes - 1) / kHashChunkBytes;
}

std::uint64_t chunk_hash(std::span<const std::byte> chunk, std::uint64_t index) noexcept {
  std::array<std::uint64_t, kHashLanes> lane{};
  for (unsigned k = 0; k < kHashLanes; ++k) lane[k] = hash_lane_seed(k);
  const std::byte* p = chunk.data();
  const std::size_t words = chunk.size() / 8;
  std::size_t j = 0;
  // Whole stripes first: 32 independent chains keep the multiplier busy.
  for (; j + kHashLanes <= words; j += kHashLanes) {
    for (unsigned k = 0; k < kHashLanes; ++k) lane[k] = hash_absorb(lane[k], read_le64(p + 8 * (j + k)));
  }
  for (; j < words; ++j) lane[j % kHashLanes] = hash_absorb(lane[j % kHashLanes], read_le64(p + 8 * j));
  if (const std::size_t tail = chunk.size() % 8; tail != 0) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(p + 8 * words);
    lane[words % kHashLanes] = hash_absorb(lane[words % kHashLanes], hash_tail_word(bytes, tail));
  }
  std::uint64_t h = hash_chunk_start(index, chunk.size());
  for (const std::uint64_t l : lane) h = hash_absorb(h, l);
  return hash_finalize(h);
}

std::uint64_t combine_chunk_hashes(std::span<const std::uint64_t> chunk_hashes,
                                   std::uint64_t total_bytes) noexcept {
  std::uint64_t h = hash_range_start(total_bytes);
  for (const std::uint64_t c : chunk_hashes) h = hash_absorb(h, c);
  return hash_finalize(h);
}

std::uint64_t chunked_hash(std::span<const std::byte> bytes) noexcept {
  std::uint64_t h = hash_range_start(bytes.size());
  for (std::size_t c = 0, begin = 0; begin < bytes.size(); ++c, begin += kHashChunkBytes) {
    h = hash_absorb(h, chunk_hash(bytes.subspan(begin, std::min(kHashChunkBytes, bytes.size() - begin)), c));
  }
  return hash_finalize(h);
}

std::string chunked_hash_hex(std::uint64_t hash) {
  char text[17];
  std::snprintf(text, sizeof text, "%016" PRIx64, hash);
  return text;
}

}  // namespace kh
