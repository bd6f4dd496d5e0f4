// A real CPU worker with a solution of rmsnorm_h128 built and loaded, for tests of the
// worker's requests (check_sets, time) without a whole evaluation around them.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "compile/build_cache.h"
#include "compile/build_request.h"
#include "eval/measurement_client.h"
#include "eval/operator_library.h"
#include "eval/solution_build.h"

namespace kh::test {

class CpuWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ops_ = std::make_unique<OperatorLibrary>(
        OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators"));
    op_ = ops_->find("rmsnorm_h128");
    ASSERT_NE(op_, nullptr);
    scratch_ = std::filesystem::temp_directory_path() / ("kharness-cpu-worker-" + std::to_string(::getpid()));
  }
  void TearDown() override { std::filesystem::remove_all(scratch_); }

  // A CPU worker with `solution` loaded.
  std::unique_ptr<MeasurementClient> worker_with(const Solution& solution) {
    WorkerConfig config;
    config.executable = KHARNESS_EXECUTABLE;
    config.backend = "cpu";
    config.work_dir = scratch_ / solution.name;
    config.timeout = std::chrono::seconds(60);
    auto client = std::make_unique<MeasurementClient>(config);
    BuildSettings settings;
    settings.backend = "cpu";
    settings.include_dir = std::filesystem::path(KHARNESS_EXECUTABLE).parent_path() / "include";
    const BuildCache cache(scratch_ / "cache");
    const BuildResult build = build_solutions(cache, {solution}, op_->definition, settings, 1).front();
    EXPECT_EQ(build.status, BuildResult::Status::ok) << build.log;
    if (build.status != BuildResult::Status::ok) return nullptr;
    client->load(build.library.string(),
                 signature_text(kernel_signature(op_->definition, solution.spec.entry_function())));
    return client;
  }

  std::unique_ptr<OperatorLibrary> ops_;
  const OperatorEntry* op_ = nullptr;
  std::filesystem::path scratch_;
};

}  // namespace kh::test
