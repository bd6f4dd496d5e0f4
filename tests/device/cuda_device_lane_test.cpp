// GPU tests of `--gpus` (label gpu): the lanes of the GPUs present, each pinned to its GPU
// by UUID, and the backend reporting the same UUID and PCI id. They skip without a device.
#include <gtest/gtest.h>

#include "device/cuda_backend.h"
#include "device/device_lane.h"
#include "error/error.h"
#include "gpu_required.h"

namespace kh {
namespace {

// On a host with CUDA devices: every lane is a present GPU, pinned to it by its UUID (an
// ordinal would be relative to the caller's own CUDA_VISIBLE_DEVICES).
TEST(DeviceLanes, CudaLanesArePinnedByUuid) {
  KH_REQUIRE_GPU();
  const std::vector<GpuIdentity> gpus = cuda_devices();
  const std::vector<DeviceLane> lanes = device_lanes("cuda", "all");
  ASSERT_EQ(lanes.size(), gpus.size());
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    EXPECT_EQ(lanes[i].uuid.rfind("GPU-", 0), 0u) << lanes[i].uuid;
    ASSERT_EQ(lanes[i].env.size(), 1u);
    EXPECT_EQ(lanes[i].env[0].first, "CUDA_VISIBLE_DEVICES");
    EXPECT_EQ(lanes[i].env[0].second, lanes[i].uuid);
    EXPECT_FALSE(lanes[i].pci_bus_id.empty());
  }
  EXPECT_THROW((void)device_lanes("cuda", std::to_string(gpus.size())), Error) << "one past the last GPU";
}

TEST(DeviceLanes, BackendReportsTheLanesUuidAndPciId) {
  KH_REQUIRE_GPU();
  const std::vector<GpuIdentity> gpus = cuda_devices();
  CudaBackend backend(0);
  EXPECT_EQ(backend.info().uuid, gpus[0].uuid);
  EXPECT_EQ(backend.info().pci_bus_id, gpus[0].pci_bus_id);
}

}  // namespace
}  // namespace kh
