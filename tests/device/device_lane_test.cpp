// `--gpus` as device lanes: CPU logical lanes (what CI runs), the errors a user gets, and
// on a CUDA host the lanes of the GPUs present, each pinned to its GPU by UUID.
#include "device/device_lane.h"

#include <gtest/gtest.h>

#include "device/backend.h"
#include "error/error.h"

namespace kh {
namespace {

TEST(DeviceLanes, CpuListNamesLogicalLanes) {
  const std::vector<DeviceLane> lanes = device_lanes("cpu", "0,1,3");
  ASSERT_EQ(lanes.size(), 3u);
  EXPECT_EQ(lanes[0].index, 0);
  EXPECT_EQ(lanes[2].index, 3);
  for (const DeviceLane& l : lanes) {
    EXPECT_EQ(l.backend, "cpu");
    EXPECT_TRUE(l.env.empty()) << "a CPU lane needs no device pinning";
  }
  EXPECT_EQ(device_lanes("cpu", "all").size(), 1u) << "the CPU is one device";
}

TEST(DeviceLanes, MalformedOrRepeatedListsAreRefusedNamingTheOption) {
  for (const char* bad : {"", "0,", "a", "1,1", "-1", "0;1", "2x"}) {
    try {
      (void)device_lanes("cpu", bad);
      ADD_FAILURE() << "accepted --gpus '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.where().field, "--gpus") << bad;
    }
  }
  EXPECT_THROW((void)device_lanes("tpu", "all"), Error);
}

TEST(DeviceLanes, CudaWithoutCudaSaysWhy) {
  if (compiled_backends().size() > 1)
    GTEST_SKIP() << "this build has CUDA; CudaLanesArePinnedByUuid covers it";
  try {
    (void)device_lanes("cuda", "all");
    FAIL() << "a build without CUDA listed CUDA lanes";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("without the CUDA toolkit"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kh
