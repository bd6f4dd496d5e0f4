#include "tensor/fast_hash.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "perf_guard.h"

namespace kh {
namespace {

std::vector<std::byte> counting(std::size_t n) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>(i * 131 + 7);
  return v;
}

TEST(ContentHash, StableValue) {
  // Pinned: a change here changes every recorded input hash, which must be deliberate.
  const auto v = counting(100);
  EXPECT_EQ(hash_bytes(v), hash_bytes(counting(100)));
  EXPECT_EQ(hash_bytes({}), hash_bytes(std::span<const std::byte>{}));
  EXPECT_EQ(hash_bytes(v), 0xb74b0c057c84c2d9ull);
  EXPECT_EQ(hash_bytes({}), 0x2bfa65e16f9e7c92ull);
  EXPECT_EQ(hash_bytes(std::span(v).first(37), 5), 0xdb0f57ee2af03658ull);
}

TEST(ContentHash, EveryLengthAndEveryBitMatters) {
  std::set<std::uint64_t> seen;
  const auto v = counting(200);
  for (std::size_t n = 0; n <= v.size(); ++n) seen.insert(hash_bytes(std::span(v).first(n)));
  EXPECT_EQ(seen.size(), v.size() + 1);
  auto w = counting(77);
  const std::uint64_t base = hash_bytes(w);
  for (std::size_t i = 0; i < w.size() * 8; ++i) {
    w[i / 8] ^= static_cast<std::byte>(1u << (i % 8));
    EXPECT_NE(hash_bytes(w), base) << "bit " << i;
    w[i / 8] ^= static_cast<std::byte>(1u << (i % 8));
  }
  EXPECT_NE(hash_bytes(w, 1), base) << "seed matters";
}

TEST(ContentHash, FasterThanTwoGigabytesPerSecond) {
  KH_SKIP_UNLESS_OPTIMIZED();
  const double gbps = hash_gigabytes_per_second([](std::span<const std::byte> b) { return hash_bytes(b); });
  EXPECT_GT(gbps, 2.0);
}

}  // namespace
}  // namespace kh
