#include "worker/payload_buffers.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace kh {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// Each test leaves nothing kept, so their order does not matter.
void drain() {
  while (kept_payload_bytes() > 0) (void)take_payload_buffer(0 + kMiB);
}

TEST(PayloadBuffers, AGivenBackBufferServesTheNextPayloadThatFits) {
  drain();
  std::vector<std::byte> first = take_payload_buffer(64 * kMiB);
  EXPECT_TRUE(first.empty());
  ASSERT_GE(first.capacity(), 64 * kMiB);
  first.resize(64 * kMiB);
  const std::byte* storage = first.data();
  give_back_payload_buffer(std::move(first));
  EXPECT_EQ(kept_payload_bytes(), 64 * kMiB);
  std::vector<std::byte> second = take_payload_buffer(48 * kMiB);
  EXPECT_EQ(second.data(), storage) << "the same pages, already committed";
  EXPECT_TRUE(second.empty()) << "a taken buffer holds nothing of the last payload";
  EXPECT_EQ(kept_payload_bytes(), 0U);
  second.resize(48 * kMiB);
  EXPECT_EQ(second[0], std::byte{0}) << "resizing zero-fills as with a fresh buffer";
}

TEST(PayloadBuffers, APayloadLargerThanEveryKeptBufferGetsAFreshOne) {
  drain();
  std::vector<std::byte> small = take_payload_buffer(2 * kMiB);
  small.resize(2 * kMiB);
  give_back_payload_buffer(std::move(small));
  std::vector<std::byte> big = take_payload_buffer(8 * kMiB);
  EXPECT_GE(big.capacity(), 8 * kMiB);
  EXPECT_EQ(kept_payload_bytes(), 2 * kMiB) << "the small one stays kept";
  drain();
}

TEST(PayloadBuffers, SmallBuffersAreNotKeptAndTheKeptBytesAreBounded) {
  drain();
  std::vector<std::byte> tiny(4096);
  give_back_payload_buffer(std::move(tiny));
  EXPECT_EQ(kept_payload_bytes(), 0U);
  // Three buffers of 1 GiB of address space (reserved, never written): the bound keeps two.
  for (int i = 0; i < 3; ++i) give_back_payload_buffer(take_payload_buffer(1024 * kMiB));
  EXPECT_LE(kept_payload_bytes(), 2048 * kMiB);
  EXPECT_GT(kept_payload_bytes(), 0U);
  drain();
}

}  // namespace
}  // namespace kh
