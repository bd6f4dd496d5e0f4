#include "device/cpu_backend.h"

#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "error/error.h"
#include "tensor/chunked_hash.h"
#include "timing/iteration_timer.h"

namespace kh {
namespace {

TEST(CpuBackend, InfoDescribesTheHost) {
  CpuBackend backend;
  const DeviceInfo& info = backend.info();
  EXPECT_EQ(info.backend, "cpu");
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.l2_bytes, 0u);
  EXPECT_EQ(info.compute_capability, 0);
  EXPECT_FALSE(info.clocks_unavailable_reason.empty());
  EXPECT_EQ(backend.dlpack_device_type(), kDLCPU);
  EXPECT_EQ(backend.device_ordinal(), 0);
}

TEST(CpuBackend, AllocationsAreAlignedAndNeverNull) {
  CpuBackend backend;
  for (const std::size_t bytes : {0u, 1u, 63u, 64u, 1000u}) {
    void* ptr = backend.allocate(bytes);
    ASSERT_NE(ptr, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ptr) % CpuBackend::kAlignment, 0u);
    backend.release(ptr);
  }
}

TEST(CpuBackend, FillUploadDownloadRoundTrip) {
  CpuBackend backend;
  constexpr std::size_t kBytes = 4096;
  void* device = backend.allocate(kBytes);
  backend.fill(device, 0xAB, kBytes);
  std::vector<std::uint8_t> host(kBytes, 0);
  backend.download(host.data(), device, kBytes);
  for (const std::uint8_t byte : host) ASSERT_EQ(byte, 0xAB);
  for (std::size_t i = 0; i < kBytes; ++i) host[i] = static_cast<std::uint8_t>(i * 7);
  backend.upload(device, host.data(), kBytes);
  std::vector<std::uint8_t> back(kBytes, 0);
  backend.download(back.data(), device, kBytes);
  EXPECT_EQ(back, host);
  backend.release(device);
}

// Device memory is host memory: the hash is the host implementation over the buffer
// itself, so a write through the device pointer shows at once.
TEST(CpuBackend, HashAllIsTheHostImplementationInPlace) {
  CpuBackend backend;
  const std::vector<std::size_t> sizes = {0, 1, 7, 33, (256u << 10) + 1, (3u << 20) + 5};
  std::vector<Backend::Region> regions;
  std::vector<std::vector<std::byte>> host;
  for (const std::size_t n : sizes) {
    std::vector<std::byte>& h = host.emplace_back(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<std::byte>(i * 31 + n);
    void* device = backend.allocate(n);
    backend.upload(device, h.data(), n);
    regions.push_back({device, n});
  }
  const std::vector<std::uint64_t> hashes = backend.hash_all(regions);
  ASSERT_EQ(hashes.size(), sizes.size());
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    EXPECT_EQ(hashes[r], chunked_hash(std::span<const std::byte>(host[r]))) << sizes[r] << " bytes";
  }
  static_cast<std::byte*>(const_cast<void*>(regions.back().data))[sizes.back() - 1] ^= std::byte{1};
  const std::vector<std::uint64_t> after = backend.hash_all(regions);
  EXPECT_NE(after.back(), hashes.back());
  EXPECT_EQ(after.front(), hashes.front());
  EXPECT_TRUE(backend.hash_all({}).empty());
  for (const Backend::Region& r : regions) backend.release(const_cast<void*>(r.data));
}

TEST(CpuBackend, StreamlessAndNeverSticky) {
  CpuBackend backend;
  EXPECT_EQ(backend.stream(), nullptr);
  backend.synchronize();
  EXPECT_FALSE(backend.sticky());
  EXPECT_FALSE(backend.sm_clock_mhz().has_value());
}

TEST(CpuBackend, FlushRuns) {
  CpuBackend backend;
  backend.flush_cache();
  backend.flush_cache();
  SUCCEED();
}

TEST(CpuBackend, OffersOnlyTheSteadyClock) {
  CpuBackend backend;
  EXPECT_EQ(backend.timers(), std::vector<TimerKind>{TimerKind::steady_clock});
  const auto timer = backend.make_timer(TimerKind::steady_clock);
  EXPECT_EQ(timer->name(), "steady_clock");
  EXPECT_THROW(static_cast<void>(backend.make_timer(TimerKind::cupti_span)), Error);
  EXPECT_THROW(static_cast<void>(backend.make_timer(TimerKind::cuda_event)), Error);
}

}  // namespace
}  // namespace kh
