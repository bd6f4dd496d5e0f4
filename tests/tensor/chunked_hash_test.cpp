#include "tensor/chunked_hash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <vector>

#include "perf_guard.h"
#include "tensor/counter_rng.h"
#include "tensor/portable/chunked_hash_steps.h"

namespace kh {
namespace {

constexpr std::size_t kChunk = detail::kHashChunkBytes;

std::vector<std::byte> random_bytes(std::size_t n, std::uint64_t key) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>(random_word(key, i));
  return v;
}

const std::vector<std::size_t>& lengths() {
  static const std::vector<std::size_t> all = {
      0, 1, 7, 8, 31, 33, 255, 256, 257, kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 5};
  return all;
}

// The definition read literally, in the order a warp computes it: lane by lane, each
// lane striding over the chunk's words, every word assembled byte by byte. The library's
// host path walks stripes instead; the two must agree.
std::uint64_t as_a_warp_would(const std::vector<std::byte>& v) {
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  std::uint64_t h = detail::hash_range_start(v.size());
  for (std::size_t c = 0; c * kChunk < v.size(); ++c) {
    const std::size_t bytes = std::min(kChunk, v.size() - c * kChunk);
    const unsigned char* chunk = p + c * kChunk;
    std::uint64_t ch = detail::hash_chunk_start(c, bytes);
    for (unsigned lane = 0; lane < detail::kHashLanes; ++lane) {
      std::uint64_t acc = detail::hash_lane_seed(lane);
      for (std::size_t j = lane; j < bytes / 8; j += detail::kHashLanes) {
        acc = detail::hash_absorb(acc, detail::hash_tail_word(chunk + 8 * j, 8));
      }
      if (bytes % 8 != 0 && lane == bytes / 8 % detail::kHashLanes) {
        acc = detail::hash_absorb(acc, detail::hash_tail_word(chunk + bytes / 8 * 8, bytes % 8));
      }
      ch = detail::hash_absorb(ch, acc);
    }
    h = detail::hash_absorb(h, detail::hash_finalize(ch));
  }
  return detail::hash_finalize(h);
}

TEST(ChunkedHash, EqualContentHashesEqual) {
  for (const std::size_t n : lengths()) {
    EXPECT_EQ(chunked_hash(random_bytes(n, 1)), chunked_hash(random_bytes(n, 1))) << n << " bytes";
    if (n > 0) {
      EXPECT_NE(chunked_hash(random_bytes(n, 1)), chunked_hash(random_bytes(n, 2))) << n << " bytes";
    }
  }
}

TEST(ChunkedHash, MatchesTheDefinitionComputedAsAWarpWould) {
  for (const std::size_t n : lengths()) {
    const auto v = random_bytes(n, 3);
    EXPECT_EQ(chunked_hash(v), as_a_warp_would(v)) << n << " bytes";
  }
}

TEST(ChunkedHash, IsTheCombinationOfItsChunkHashes) {
  for (const std::size_t n : lengths()) {
    const auto v = random_bytes(n, 4);
    std::vector<std::uint64_t> chunks;
    for (std::size_t c = 0; c < hash_chunk_count(n); ++c) {
      chunks.push_back(chunk_hash(std::span(v).subspan(c * kChunk, std::min(kChunk, n - c * kChunk)), c));
    }
    EXPECT_EQ(combine_chunk_hashes(chunks, n), chunked_hash(v)) << n << " bytes";
  }
  EXPECT_EQ(hash_chunk_count(0), 0u);
  EXPECT_EQ(hash_chunk_count(kChunk), 1u);
  EXPECT_EQ(hash_chunk_count(kChunk + 1), 2u);
}

// First, last, the first tail byte, both sides of every chunk boundary, and a byte in
// the middle of each chunk: a kernel that writes any of them must be seen.
TEST(ChunkedHash, OneFlippedByteAnywhereChangesIt) {
  for (const std::size_t n : lengths()) {
    if (n == 0) continue;
    auto v = random_bytes(n, 5);
    const std::uint64_t base = chunked_hash(v);
    std::set<std::size_t> where = {0, n - 1, n / 8 * 8, n / 2};
    for (std::size_t boundary = kChunk; boundary < n; boundary += kChunk) {
      where.insert({boundary - 1, boundary, boundary - kChunk / 2});
    }
    for (const std::size_t i : where) {
      if (i >= n) continue;
      for (const std::byte flip : {std::byte{0x01}, std::byte{0x80}}) {
        v[i] ^= flip;
        EXPECT_NE(chunked_hash(v), base) << n << " bytes, byte " << i;
        v[i] ^= flip;
      }
    }
    EXPECT_EQ(chunked_hash(v), base);
  }
}

TEST(ChunkedHash, ZerosOfDifferentLengthsDiffer) {
  std::set<std::uint64_t> seen;
  for (const std::size_t n : lengths()) seen.insert(chunked_hash(std::vector<std::byte>(n)));
  for (std::size_t n = 0; n <= 80; ++n) seen.insert(chunked_hash(std::vector<std::byte>(n)));
  // lengths() shares 0, 1, 7, 8, 31 and 33 with 0..80.
  EXPECT_EQ(seen.size(), lengths().size() + 81 - 6);
}

TEST(ChunkedHash, SwappedWordsOrChunksDiffer) {
  auto v = random_bytes(2 * kChunk, 6);
  const std::uint64_t base = chunked_hash(v);
  std::swap_ranges(v.begin(), v.begin() + 8, v.begin() + 8);  // words 0 and 1: lanes 0 and 1
  EXPECT_NE(chunked_hash(v), base);
  std::swap_ranges(v.begin(), v.begin() + 8, v.begin() + 8);
  std::swap_ranges(v.begin(), v.begin() + 8, v.begin() + 256);  // words 0 and 32: both lane 0
  EXPECT_NE(chunked_hash(v), base);
  std::swap_ranges(v.begin(), v.begin() + 8, v.begin() + 256);
  std::swap_ranges(v.begin(), v.begin() + kChunk, v.begin() + kChunk);  // the two chunks
  EXPECT_NE(chunked_hash(v), base);
}

TEST(ChunkedHash, AlignmentDoesNotMatter) {
  const auto v = random_bytes(kChunk + 77, 7);
  std::vector<std::byte> shifted(v.size() + 3);
  std::copy(v.begin(), v.end(), shifted.begin() + 3);
  EXPECT_EQ(chunked_hash(std::span(shifted).subspan(3)), chunked_hash(v));
}

TEST(ChunkedHash, PinnedValues) {
  // A change here changes every recorded input hash and must match the CUDA kernel:
  // change both deliberately, never one.
  EXPECT_EQ(chunked_hash({}), 0x4e96155e5f0a1c3full);
  EXPECT_EQ(chunked_hash(random_bytes(kChunk + 13, 8)), 0xa72ba0f2eae77b1full);
}

TEST(ChunkedHash, FasterThanTwoGigabytesPerSecond) {
  KH_SKIP_UNLESS_OPTIMIZED();
  const double gbps = hash_gigabytes_per_second([](std::span<const std::byte> b) { return chunked_hash(b); });
  std::cout << "chunked_hash on one core: " << gbps << " GB/s\n";
  EXPECT_GT(gbps, 2.0);
}

}  // namespace
}  // namespace kh

namespace kh {
namespace {

TEST(ChunkedHash, HexIsSixteenLowercaseDigitsWithLeadingZeros) {
  EXPECT_EQ(chunked_hash_hex(0x1ULL), "0000000000000001");
  EXPECT_EQ(chunked_hash_hex(0xDEADBEEF00C0FFEEULL), "deadbeef00c0ffee");
  EXPECT_EQ(chunked_hash_hex(~0ULL), "ffffffffffffffff");
}

}  // namespace
}  // namespace kh
