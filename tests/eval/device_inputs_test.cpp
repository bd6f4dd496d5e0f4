// The worker's input path on the CPU backend (generate_input_sets: one arena, sets made in
// place at the site) gives the host twin's bytes for every shipped generator and the
// generic rule, on the CI workloads, several seeds each. The GPU twin of this test is
// device_inputs_gpu_test.cpp.
#include <gtest/gtest.h>

#include "device/cpu_backend.h"
#include "input_twins.h"

namespace kh {
namespace {

const std::vector<std::uint64_t> kSeeds = {1, 0x5eed, 0xFFFFFFFFFFFFFFFFull};

TEST(DeviceInputs, GenericRuleOnTheCpuBackendIsTheHostTwin) {
  CpuBackend backend;
  const Definition d = test::every_dtype_definition();
  for (std::int64_t m : {1, 3})
    EXPECT_GT(test::expect_twins(backend, d, test::every_dtype_workload(m), ".", kSeeds), 0u);
}

TEST(DeviceInputs, EveryOperatorOnTheCpuBackendIsTheHostTwin) {
  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  CpuBackend backend;
  for (const OperatorEntry& op : ops.entries()) {
    const std::vector<Workload> workloads = ops.workloads(op.definition.name, true);
    ASSERT_FALSE(workloads.empty()) << op.definition.name;
    // The first and the last CI workload: the smallest and the largest shapes.
    for (const Workload* w : {&workloads.front(), &workloads.back()})
      test::expect_twins(backend, op.definition, *w, op.dir, {kSeeds[0], kSeeds[1]});
  }
}

TEST(DeviceInputs, SetsHaveDistinctAddressesAndContents) {
  CpuBackend backend;
  const Definition d = test::every_dtype_definition();
  const auto sets = generate_input_sets(backend, d, test::every_dtype_workload(2), ".", {5, 6, 7});
  ASSERT_EQ(sets.size(), 3u);
  for (std::size_t i = 0; i + 1 < sets.size(); ++i) {
    EXPECT_NE(sets[i][0].data, sets[i + 1][0].data);
    EXPECT_NE(std::memcmp(sets[i][0].data, sets[i + 1][0].data, sets[i][0].bytes), 0);
  }
  EXPECT_EQ(sets[0].back().scalar_value, 7.0) << "the workload's scalar";
}

}  // namespace
}  // namespace kh
