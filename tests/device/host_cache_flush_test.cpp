// The CPU cache flush: bounded in cost whatever the host reports as its last-level
// cache, and harmless to the data it evicts.
#include "device/host_cache_flush.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace kh {
namespace {

TEST(HostCacheFlush, TheSweepIsTwiceTheCacheUpToTheCap) {
  EXPECT_EQ(HostCacheFlush(std::size_t{8} << 20).bytes(), std::size_t{16} << 20);
  // A 2-core virtual machine reported its socket's 480 MiB L3: sweeping 960 MiB took
  // 246 ms an iteration.
  EXPECT_EQ(HostCacheFlush(std::size_t{480} << 20).bytes(), HostCacheFlush::kMaxSweepBytes);
}

TEST(HostCacheFlush, EvictingKeepsTheContents) {
  std::vector<unsigned char> a(10000, 0x5A), b(3, 0xC3);  // b: smaller than a line, unaligned
  HostCacheFlush flush(std::size_t{1} << 20);
  flush.evict_then_flush({{a.data() + 1, a.size() - 1}, {b.data(), b.size()}});
  for (unsigned char v : a) ASSERT_EQ(v, 0x5A);
  for (unsigned char v : b) ASSERT_EQ(v, 0xC3);
}

}  // namespace
}  // namespace kh
