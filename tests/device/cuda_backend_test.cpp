// GPU tests of the CUDA backend (label gpu): they skip without a device.
#include "device/cuda_backend.h"

#include <dlpack/dlpack.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_required.h"
#include "timing/clock_monitor.h"
#include "worker/shared_region.h"

namespace kh {
namespace {

TEST(CudaBackend, InfoIsSane) {
  KH_REQUIRE_GPU();
  CudaBackend backend;
  const DeviceInfo& info = backend.info();
  EXPECT_EQ(info.backend, "cuda");
  EXPECT_FALSE(info.name.empty());
  EXPECT_FALSE(info.driver.empty());
  EXPECT_FALSE(info.runtime.empty());
  EXPECT_GE(info.compute_capability, 70);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.l2_bytes, 0u);
  EXPECT_EQ(backend.dlpack_device_type(), kDLCUDA);
  EXPECT_EQ(backend.device_ordinal(), 0);
  EXPECT_NE(backend.stream(), nullptr);
  EXPECT_FALSE(backend.sticky());
}

TEST(CudaBackend, H200InfoMatchesTheDatasheet) {
  KH_REQUIRE_GPU();
  CudaBackend backend;
  const DeviceInfo& info = backend.info();
  if (info.name.find("H200") == std::string::npos) GTEST_SKIP() << "not an H200: " << info.name;
  EXPECT_EQ(info.compute_capability, 90);
  EXPECT_EQ(info.sm_count, 132);
  EXPECT_GE(info.l2_bytes, 50u << 20);
}

TEST(CudaBackend, FillUploadDownloadRoundTrip) {
  KH_REQUIRE_GPU();
  CudaBackend backend;
  constexpr std::size_t kBytes = 1 << 20;
  void* device = backend.allocate(kBytes);
  backend.fill(device, 0x5A, kBytes);
  std::vector<std::uint8_t> host(kBytes, 0);
  backend.download(host.data(), device, kBytes);
  for (const std::uint8_t byte : host) ASSERT_EQ(byte, 0x5A);
  for (std::size_t i = 0; i < kBytes; ++i) host[i] = static_cast<std::uint8_t>(i * 13);
  backend.upload(device, host.data(), kBytes);
  std::vector<std::uint8_t> back(kBytes, 0);
  backend.download(back.data(), device, kBytes);
  EXPECT_EQ(back, host);
  backend.release(device);
  void* empty = backend.allocate(0);
  EXPECT_NE(empty, nullptr);
  backend.release(empty);
}

TEST(CudaBackend, AFreedLargeBlockServesTheNextAllocationOfItsSizeOnly) {
  KH_REQUIRE_GPU();
  CudaBackend backend;
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  void* first = backend.allocate(kBytes);
  backend.fill(first, 0x11, kBytes);
  backend.release(first);
  void* other = backend.allocate(kBytes + 4096);
  EXPECT_NE(other, first) << "a kept block went to a request of another size";
  void* again = backend.allocate(kBytes);
  EXPECT_EQ(again, first);
  // Usable as any fresh block.
  backend.fill(again, 0x22, kBytes);
  std::vector<std::uint8_t> host(kBytes, 0);
  backend.download(host.data(), again, kBytes);
  EXPECT_EQ(host.front(), 0x22);
  EXPECT_EQ(host.back(), 0x22);
  backend.release(again);
  backend.release(other);
}

TEST(CudaBackend, PinnedHostRangeTakesDownloadsAndIsReleased) {
  KH_REQUIRE_GPU();
  CudaBackend backend;
  constexpr std::size_t kBytes = std::size_t{8} << 20;
  std::vector<std::uint8_t> host(kBytes, 0);
  ASSERT_EQ(backend.pin_host_range(host.data(), kBytes), "");
  void* device = backend.allocate(kBytes);
  backend.fill(device, 0x6B, kBytes);
  backend.download(host.data(), device, kBytes);
  EXPECT_EQ(host[kBytes / 2], 0x6B);
  backend.unpin_host_range(host.data());
  EXPECT_EQ(backend.pin_host_range(host.data(), kBytes), "") << "unpinned, so it can be pinned again";
  backend.unpin_host_range(host.data());
  backend.release(device);
}

// The worker pins its side of the shared reply region, a memfd mapping: downloads land
// in it and the orchestrator's read-only mapping sees them.
TEST(CudaBackend, ASharedReplyRegionCanBePinnedAndDownloadedInto) {
  KH_REQUIRE_GPU();
  CudaBackend backend;
  constexpr std::size_t kBytes = std::size_t{16} << 20;
  const SharedRegion orchestrator = SharedRegion::create(kBytes);
  const SharedRegion worker = SharedRegion::map_inherited(::dup(orchestrator.fd()));
  ASSERT_EQ(backend.pin_host_range(worker.bytes().data(), kBytes), "");
  void* device = backend.allocate(kBytes);
  backend.fill(device, 0x3C, kBytes);
  backend.download(worker.bytes().data(), device, kBytes);
  EXPECT_EQ(orchestrator.bytes()[0], std::byte{0x3C});
  EXPECT_EQ(orchestrator.bytes()[kBytes - 1], std::byte{0x3C});
  backend.unpin_host_range(worker.bytes().data());
  backend.release(device);
}

TEST(CudaBackend, OffersCuptiFirstThenEvents) {
  KH_REQUIRE_GPU();
  CudaBackend backend;
  EXPECT_EQ(backend.timers(), (std::vector<TimerKind>{TimerKind::cupti_span, TimerKind::cuda_event}));
  backend.flush_cache();
}

TEST(CudaBackend, NvmlClocksAreReadable) {
  KH_REQUIRE_GPU();
  CudaBackend backend;
  const DeviceInfo& info = backend.info();
  if (!info.clocks_unavailable_reason.empty()) GTEST_SKIP() << "NVML: " << info.clocks_unavailable_reason;
  EXPECT_GT(info.nominal_sm_clock_mhz, 0.0);
  const std::optional<double> now = backend.sm_clock_mhz();
  ASSERT_TRUE(now.has_value());
  EXPECT_GT(*now, 0.0);
  EXPECT_LE(*now, info.nominal_sm_clock_mhz * 1.01);
}

TEST(CudaBackend, StickyErrorList) {
  EXPECT_TRUE(is_sticky_cuda_error(cudaErrorIllegalAddress));
  EXPECT_TRUE(is_sticky_cuda_error(cudaErrorLaunchFailure));
  EXPECT_TRUE(is_sticky_cuda_error(cudaErrorAssert));
  EXPECT_FALSE(is_sticky_cuda_error(cudaErrorInvalidValue));
  EXPECT_FALSE(is_sticky_cuda_error(cudaErrorMemoryAllocation));
  EXPECT_FALSE(is_sticky_cuda_error(cudaSuccess));
}

}  // namespace
}  // namespace kh
