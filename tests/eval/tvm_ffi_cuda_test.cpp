// tvm-ffi CUDA solutions on the GPU: the shared FlashInfer-Trace example solution
// (gemm_n4096_k4096, no binding field, so tvm-ffi) runs unmodified through `kharness
// eval`, a tvm-ffi rmsnorm passes destination-passing and value-returning, and a tvm-ffi
// cheat that hides its work on a side stream gets no fake speedup, as the kharness-binding
// one does (cuda_end_to_end_test). Skips without a GPU or without apache-tvm-ffi.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "compile/tvm_ffi_runtime.h"
#include "end_to_end_fixture.h"
#include "timing/gpu_required.h"

namespace kh {
namespace {

using test::expect_all;

const std::filesystem::path kSolutions =
    std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128_tvm_ffi_cuda";
const std::filesystem::path kSharedExample =
    std::filesystem::path(KHARNESS_SHARED_DIR) /
    "flashinfer-trace/solutions/gemm_n4096_k4096_example_tvmffi.json";

using Latencies = std::map<std::string, double>;

class TvmFfiCuda : public test::EndToEndSuite {
 protected:
  void SetUp() override {
    KH_REQUIRE_GPU();
    try {
      (void)find_tvm_ffi(std::filesystem::path(KHARNESS_EXECUTABLE).parent_path());
    } catch (const Error& e) {
      GTEST_SKIP() << e.what();
    }
  }

  static EvalOptions options(const std::string& name) {
    return cuda_options(name, std::chrono::seconds(120));
  }

  static SolutionEvaluation run(const std::string& file, bool destination_passing = true) {
    Solution s = test::gallery_solution(kSolutions, file, "cuda", {"tvm_rmsnorm.cuh"});
    s.spec.binding = "tvm-ffi";
    if (!destination_passing) s.spec.destination_passing_style = false;
    return evaluate(s, options(file));
  }

  static Latencies honest_latencies(const SolutionEvaluation& e) {
    Latencies out;
    for (const WorkloadResult& w : e.workloads) {
      EXPECT_EQ(w.status, EvalStatus::passed) << w.log;
      if (w.latency) out[w.workload.uuid] = w.latency->latency_ms;
    }
    return out;
  }
};

TEST_F(TvmFfiCuda, DestinationPassingSolutionPasses) {
  const SolutionEvaluation e = run("correct.cu");
  ASSERT_EQ(e.candidate_build.status, BuildResult::Status::ok) << e.candidate_build.log;
  for (const WorkloadResult& w : e.workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    ASSERT_TRUE(w.latency);
    EXPECT_EQ(w.latency->timer, "cupti_span") << "CUPTI must see the tvm-ffi kernel";
    std::cout << w.workload.uuid << ": " << w.latency->latency_ms * 1e3 << " us\n";
  }
}

TEST_F(TvmFfiCuda, ValueReturningSolutionPassesWithTheCopyTimed) {
  const Latencies dps = honest_latencies(run("correct.cu"));
  const SolutionEvaluation e = run("value_returning.cu", false);
  ASSERT_EQ(e.candidate_build.status, BuildResult::Status::ok) << e.candidate_build.log;
  for (const WorkloadResult& w : e.workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    ASSERT_TRUE(w.latency);
    std::cout << w.workload.uuid << ": returned " << w.latency->latency_ms * 1e3 << " us, written "
              << dps.at(w.workload.uuid) * 1e3 << " us\n";
    // The copy out is part of the call, so it cannot be faster than writing in place.
    EXPECT_GE(w.latency->latency_ms, 0.9 * dps.at(w.workload.uuid));
  }
}

// The side stream's kernel is seen by CUPTI (all streams) and its span is timed, or the
// work left running after the call is caught; either way no fake speedup.
TEST_F(TvmFfiCuda, WorkOnASideStreamIsTimed) {
  const Latencies honest = honest_latencies(run("correct.cu"));
  const SolutionEvaluation e = run("side_stream.cu");
  ASSERT_FALSE(e.workloads.empty());
  for (const WorkloadResult& w : e.workloads) {
    std::cout << w.workload.uuid << ": " << status_name(w.status) << " " << w.log << "\n";
    if (w.status == EvalStatus::passed) {
      ASSERT_TRUE(w.latency);
      EXPECT_GE(w.latency->latency_ms, 0.7 * honest.at(w.workload.uuid)) << "the timed work was not all seen";
    } else {
      EXPECT_EQ(w.status, EvalStatus::reward_hack) << w.log;
    }
  }
}

// flashinfer-bench allows axis values of 0 (a public gqa_paged workload has num_pages 0):
// zero-row tensors go through allocation, poisoning, hashing, the call and the check.
TEST_F(TvmFfiCuda, AWorkloadWithAnAxisOfZeroPasses) {
  const OperatorEntry* op = ops_->find("rmsnorm_h128");
  ASSERT_NE(op, nullptr);
  Workload zero = ops_->workloads("rmsnorm_h128", true).front();
  zero.uuid = "zero-rows";
  for (auto& [name, value] : zero.axes.items)
    if (name == "batch_size") value = 0;
  Solution s = test::gallery_solution(kSolutions, "correct.cu", "cuda", {"tvm_rmsnorm.cuh"});
  s.spec.binding = "tvm-ffi";
  const SolutionEvaluation e = evaluate_solution(EvaluationTarget{op->definition,
                                                                  {zero},
                                                                  op->dir,
                                                                  s,
                                                                  ops_->reference("rmsnorm_h128", "cuda"),
                                                                  "default",
                                                                  *op->tolerance,
                                                                  op->speed_of_light},
                                                 options("zero"));
  expect_all(e, EvalStatus::passed, "");
}

// The shared example as it is: no binding field (so tvm-ffi), written for B200, TensorView
// arguments and TVMFFIEnvGetStream. Through the command line, as a user runs it.
TEST_F(TvmFfiCuda, SharedExampleSolutionPassesUnmodified) {
  if (!std::filesystem::exists(kSharedExample)) GTEST_SKIP() << "no shared example at " << kSharedExample;
  const std::string cmd = std::string("'") + KHARNESS_EXECUTABLE +
                          "' eval --definition gemm_n4096_k4096 --backend cuda --small --json --solution '" +
                          kSharedExample.string() + "' 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  for (std::size_t n = 0; (n = fread(buf.data(), 1, buf.size(), pipe)) > 0;) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  std::cout << out << "\n";
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << "kharness eval failed";
  const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j.value("all_passed", false), true) << out;
  ASSERT_TRUE(j.contains("traces")) << out;
  ASSERT_FALSE(j["traces"].empty());
  for (const auto& t : j["traces"]) EXPECT_EQ(t["evaluation"].value("status", ""), "PASSED") << t.dump();
}

}  // namespace
}  // namespace kh
