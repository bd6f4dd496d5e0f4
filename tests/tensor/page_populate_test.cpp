// populate_pages: a large fresh block becomes resident in one request (so it no longer
// faults page by page), small blocks are left alone, and the memory stays usable.
#include "tensor/page_populate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

namespace kh {
namespace {

// Resident bytes of this process, from /proc/self/statm (0 where it is unreadable).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t total = 0, resident = 0;
  if (!(statm >> total >> resident)) return 0;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

struct Free {
  void operator()(void* p) const noexcept { std::free(p); }
};

TEST(PagePopulate, MakesALargeFreshBlockResident) {
  constexpr std::size_t kBytes = std::size_t{96} << 20;  // above glibc's mmap threshold: fresh pages
  const std::unique_ptr<void, Free> block(std::aligned_alloc(64, kBytes));
  ASSERT_NE(block, nullptr);
  const std::size_t before = resident_bytes();
  if (before == 0) GTEST_SKIP() << "/proc/self/statm is not readable here";
  if (!populate_pages(block.get(), kBytes)) GTEST_SKIP() << "the kernel lacks MADV_POPULATE_WRITE";
  EXPECT_GE(resident_bytes(), before + kBytes - (std::size_t{4} << 20));
  // Populated pages are the same fresh, zeroed, writable memory.
  const auto* bytes = static_cast<const unsigned char*>(block.get());
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[kBytes / 2], 0);
  std::memset(block.get(), 0x5A, kBytes);
  EXPECT_EQ(bytes[kBytes - 1], 0x5A);
}

TEST(PagePopulate, LeavesSmallBlocksAndNullAlone) {
  std::vector<char> small(kPopulateMinBytes - 1);
  EXPECT_FALSE(populate_pages(small.data(), small.size()));
  EXPECT_FALSE(populate_pages(nullptr, kPopulateMinBytes * 2));
}

}  // namespace
}  // namespace kh
