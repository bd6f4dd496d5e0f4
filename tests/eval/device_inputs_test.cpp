// The worker's input path on the CPU backend (generate_input_sets: one arena, sets made in
// place at the site) gives the host twin's bytes for every shipped generator and the
// generic rule, on the CI workloads, several seeds each. The GPU twin of this test is
// device_inputs_gpu_test.cpp.
#include <gtest/gtest.h>

#include "device/cpu_backend.h"
#include "error/error.h"
#include "eval/worker_side/device_tensors.h"
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

// Every operator but MoE (below): the smallest and the largest CI shapes, two seeds;
// gemm's 32 MiB weight matrix, one shape and one seed.
TEST(DeviceInputs, EveryOperatorOnTheCpuBackendIsTheHostTwin) {
  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  CpuBackend backend;
  for (const OperatorEntry& op : ops.entries()) {
    const std::vector<Workload> workloads = ops.workloads(op.definition.name, true);
    ASSERT_FALSE(workloads.empty()) << op.definition.name;
    if (op.definition.name.starts_with("moe_")) continue;
    if (op.definition.name.starts_with("gemm_")) {
      test::expect_twins(backend, op.definition, workloads.front(), op.dir, {kSeeds[1]});
      continue;
    }
    for (const Workload* w : {&workloads.front(), &workloads.back()})
      test::expect_twins(backend, op.definition, *w, op.dir, {kSeeds[0], kSeeds[1]});
  }
}

// MoE's weights are 1.4 GB a set whatever the workload (about 10 s here): one set. Its
// host twin writes only the experts in use into zeroed tensors, while the worker's
// arena is not zeroed and gets explicit zeros: both must give the same bytes.
TEST(DeviceInputs, MoeOnTheCpuBackendIsTheHostTwin) {
  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  const OperatorEntry* moe = ops.find("moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048");
  ASSERT_NE(moe, nullptr);
  CpuBackend backend;
  test::expect_twins(backend, moe->definition, ops.workloads(moe->definition.name, true).front(), moe->dir,
                     {kSeeds[1]});
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

namespace kh {
namespace {

// A reply's payload is laid out as the orchestrator expects it: each tensor's bytes at
// its layout's offset, a scalar output (no device copy) as zeros of its dtype's size,
// and a tensor that does not fit its layout refused rather than sent short.
TEST(DownloadConcatenated, EachTensorAtItsLayoutsOffsetAndScalarsAsZeros) {
  CpuBackend backend;
  std::vector<HostTensor> host;
  host.emplace_back(DType::int32, std::vector<std::int64_t>{3});
  host.push_back(HostTensor::scalar(DType::float32));
  host.emplace_back(DType::int16, std::vector<std::int64_t>{2});
  for (int i = 0; i < 3; ++i) host[0].as<std::int32_t>()[i] = 10 + i;
  host[2].as<std::int16_t>()[0] = 7;
  host[2].as<std::int16_t>()[1] = 8;
  const std::vector<DeviceTensor> device = upload(backend, host);
  const std::vector<TensorLayout> layouts = {
      {DType::int32, {3}, 12}, {DType::float32, {}, 4}, {DType::int16, {2}, 4}};
  const std::vector<std::byte> payload = download_concatenated(backend, device, layouts);
  ASSERT_EQ(payload.size(), 20u);
  std::int32_t first[3];
  std::memcpy(first, payload.data(), 12);
  EXPECT_EQ(first[2], 12);
  for (std::size_t i = 12; i < 16; ++i) EXPECT_EQ(payload[i], std::byte{0}) << "the scalar's bytes";
  std::int16_t last[2];
  std::memcpy(last, payload.data() + 16, 4);
  EXPECT_EQ(last[0], 7);
  EXPECT_EQ(last[1], 8);
  const std::vector<TensorLayout> wrong = {
      {DType::int32, {4}, 16}, {DType::float32, {}, 4}, {DType::int16, {2}, 4}};
  EXPECT_THROW((void)download_concatenated(backend, device, wrong), Error);
}

}  // namespace
}  // namespace kh
