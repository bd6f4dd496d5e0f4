// Large host blocks are recycled between tensors of the same size, and a recycled block
// comes back zeroed through HostTensor (it held the last tensor's data).
#include "tensor/host_block_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "tensor/host_tensor.h"

namespace kh {
namespace {

TEST(HostBlockPool, FreedLargeBlockIsReusedForTheSameSize) {
  trim_host_block_pool();
  const std::size_t bytes = std::size_t{8} << 20;
  std::byte* first = acquire_host_block(bytes, 64);
  std::memset(first, 0x5a, bytes);
  release_host_block(first, bytes);
  EXPECT_EQ(pooled_host_bytes(), bytes);
  std::byte* second = acquire_host_block(bytes, 64);
  EXPECT_EQ(second, first) << "a block of the same size must come from the pool";
  EXPECT_EQ(pooled_host_bytes(), 0u);
  release_host_block(second, bytes);
  trim_host_block_pool();
  EXPECT_EQ(pooled_host_bytes(), 0u);
}

TEST(HostBlockPool, SmallBlocksAreNotPooled) {
  trim_host_block_pool();
  std::byte* p = acquire_host_block(4096, 64);
  release_host_block(p, 4096);
  EXPECT_EQ(pooled_host_bytes(), 0u);
}

TEST(HostBlockPool, RecycledTensorStorageIsZeroed) {
  trim_host_block_pool();
  const std::int64_t n = std::int64_t{4} << 20;  // 16 MiB of float
  {
    HostTensor dirty(DType::float32, {n});
    std::fill(dirty.as<float>().begin(), dirty.as<float>().end(), 3.0f);
  }
  EXPECT_GT(pooled_host_bytes(), 0u);
  HostTensor fresh(DType::float32, {n});
  EXPECT_EQ(pooled_host_bytes(), 0u) << "the new tensor must have taken the pooled block";
  const auto v = fresh.as<float>();
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](float x) { return x == 0.0f; }));
}

}  // namespace
}  // namespace kh
