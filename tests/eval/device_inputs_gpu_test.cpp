// Inputs made on the device equal the host twin's, byte for byte: every shipped
// generator (and the generic rule on every dtype) runs its kernels on the GPU
// (generate_input_sets on the CUDA backend), and the bytes are read back and compared
// with make_inputs' host computation, on CI and contest workloads and several seeds.
// Label gpu: skips where no GPU is present.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "device/cuda_backend.h"
#include "input_twins.h"

namespace kh {
namespace {

const std::vector<std::uint64_t> kSeeds = {1, 0x5eed, 0xFFFFFFFFFFFFFFFFull};

std::unique_ptr<CudaBackend> gpu_or_skip() {
  try {
    return std::make_unique<CudaBackend>(0);
  } catch (const Error& e) {
    return nullptr;
  }
}

#define KH_REQUIRE_GPU(backend) \
  auto backend = gpu_or_skip(); \
  if (!backend) GTEST_SKIP() << "no CUDA device: nothing to compare"

TEST(DeviceInputsGpu, GenericRuleOnTheDeviceIsTheHostTwin) {
  KH_REQUIRE_GPU(backend);
  const Definition d = test::every_dtype_definition();
  for (std::int64_t m : {1, 3, 1000})
    test::expect_twins(*backend, d, test::every_dtype_workload(m), ".", kSeeds);
}

// A timing request's many small sets: the small tensors of one dtype share launches (48
// at most each), so 60 sets make two batches per dtype; at m = 4 the float32 input
// (4 x 4097) is just past the batched size and has its own launch beside them.
TEST(DeviceInputsGpu, ManySmallSetsInSharedLaunchesAreTheHostTwin) {
  KH_REQUIRE_GPU(backend);
  const Definition d = test::every_dtype_definition();
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t s = 0; s < 60; ++s) seeds.push_back(77 + s * 1000003);
  for (std::int64_t m : {1, 4}) test::expect_twins(*backend, d, test::every_dtype_workload(m), ".", seeds);
}

// The CI workloads (all of them) and, from the contest workloads, the first, the middle
// and the last: every generator on small and real shapes.
TEST(DeviceInputsGpu, EveryOperatorOnTheDeviceIsTheHostTwin) {
  KH_REQUIRE_GPU(backend);
  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  for (const OperatorEntry& op : ops.entries()) {
    std::size_t bytes = 0;
    const auto start = std::chrono::steady_clock::now();
    for (const Workload& w : ops.workloads(op.definition.name, true))
      bytes += test::expect_twins(*backend, op.definition, w, op.dir, {kSeeds[0], kSeeds[2]});
    const std::vector<Workload> contest = ops.workloads(op.definition.name, false);
    for (std::size_t i : {std::size_t{0}, contest.size() / 2, contest.size() - 1})
      bytes += test::expect_twins(*backend, op.definition, contest[i], op.dir, {kSeeds[1]});
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %.1f MB compared in %.1f s\n", op.definition.name.c_str(),
                static_cast<double>(bytes) / 1e6, s);
  }
}

// 60 sets of gemm's largest workload (~2 GB) are made in milliseconds, not seconds.
TEST(DeviceInputsGpu, SixtySetsCostMilliseconds) {
  KH_REQUIRE_GPU(backend);
  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  const OperatorEntry* gemm = ops.find("gemm_n4096_k4096");
  ASSERT_NE(gemm, nullptr);
  const Workload w = ops.workloads("gemm_n4096_k4096", false).front();
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t s = 0; s < 60; ++s) seeds.push_back(1000 + s);
  (void)generate_input_sets(*backend, gemm->definition, w, gemm->dir,
                            {1});  // tables resident, kernels loaded
  const auto start = std::chrono::steady_clock::now();
  const auto sets = generate_input_sets(*backend, gemm->definition, w, gemm->dir, seeds);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::size_t bytes = 0;
  for (const auto& set : sets)
    for (const DeviceTensor& t : set) bytes += t.bytes;
  std::printf("60 sets of gemm workload %s: %.1f MB in %.2f ms\n", w.uuid.c_str(),
              static_cast<double>(bytes) / 1e6, ms);
  RecordProperty("milliseconds", std::to_string(ms));
  EXPECT_LT(ms, 200.0);
}

}  // namespace
}  // namespace kh
