#include "device/device_block_cache.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace kh {
namespace {

// Distinct addresses only: the cache never touches what they point to.
char blocks[0x4000];
void* at(std::size_t a) { return blocks + a; }

TEST(DeviceBlockCache, GivesBackOnlyABlockOfExactlyTheSizeAsked) {
  DeviceBlockCache cache(100, 10000);
  EXPECT_TRUE(cache.keep(at(0x1000), 500).empty());
  EXPECT_EQ(cache.take(499), nullptr);
  EXPECT_EQ(cache.take(501), nullptr);
  EXPECT_EQ(cache.take(500), at(0x1000));
  EXPECT_EQ(cache.take(500), nullptr) << "a block is handed out once";
  EXPECT_EQ(cache.kept_bytes(), 0u);
}

TEST(DeviceBlockCache, SmallAndOversizedBlocksAreFreedAtOnce) {
  DeviceBlockCache cache(100, 1000);
  EXPECT_EQ(cache.keep(at(0x1000), 99), std::vector<void*>{at(0x1000)});
  EXPECT_EQ(cache.keep(at(0x2000), 1001), std::vector<void*>{at(0x2000)});
  EXPECT_EQ(cache.kept_bytes(), 0u);
}

TEST(DeviceBlockCache, StaysWithinItsBoundByFreeingTheOldestFirst) {
  DeviceBlockCache cache(100, 1000);
  EXPECT_TRUE(cache.keep(at(0x1000), 400).empty());
  EXPECT_TRUE(cache.keep(at(0x2000), 400).empty());
  EXPECT_EQ(cache.keep(at(0x3000), 400), std::vector<void*>{at(0x1000)});
  EXPECT_EQ(cache.kept_bytes(), 800u);
  EXPECT_EQ(cache.take(400), at(0x3000)) << "the most recently kept of a size comes first";
  EXPECT_EQ(cache.take(400), at(0x2000));
}

TEST(DeviceBlockCache, DrainHandsOverEverythingKept) {
  DeviceBlockCache cache(1, 1000);
  (void)cache.keep(at(0x1000), 10);
  (void)cache.keep(at(0x2000), 20);
  const std::vector<void*> all = cache.drain();
  EXPECT_EQ(all, (std::vector<void*>{at(0x1000), at(0x2000)}));
  EXPECT_EQ(cache.kept_bytes(), 0u);
  EXPECT_EQ(cache.take(10), nullptr);
}

}  // namespace
}  // namespace kh
