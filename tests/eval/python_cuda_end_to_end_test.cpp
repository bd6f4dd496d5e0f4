// Python (torch) and Triton solutions end to end on the CUDA backend: the same CUPTI
// all-stream span, cache flush, poisoned outputs, input hashes and moved addresses as
// native kernels, with a gallery of Python and Triton cheats
// (tests/eval/solutions/rmsnorm_h128_python/) that must be caught or get no fake speedup.
// Mirrors cuda_end_to_end_test.cpp. Skips where there is no GPU or no torch.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>

#include "end_to_end_fixture.h"
#include "timing/gpu_required.h"
#include "torch_required.h"

namespace kh {
namespace {

using test::expect_all;

const std::filesystem::path kSolutions =
    std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128_python";

using Latencies = std::map<std::string, double>;

Solution gallery(const std::string& file, bool destination_passing) {
  Solution s;
  s.name = std::filesystem::path(file).stem().string();
  s.definition = "rmsnorm_h128";
  s.spec.language = file.find("triton") != std::string::npos ? "triton" : "python";
  s.spec.entry_point = file + "::rmsnorm";
  s.spec.destination_passing_style = destination_passing;
  s.sources.push_back({file, test::read_file(kSolutions / file), {}});
  for (const char* shared : {"rmsnorm_common.py", "rmsnorm_triton.py"})
    s.sources.push_back({shared, test::read_file(kSolutions / shared), {}});
  return s;
}

class PythonCudaEndToEnd : public test::EndToEndSuite {
 protected:
  void SetUp() override {
    KH_REQUIRE_GPU();
    KH_REQUIRE_TORCH();
  }

  EvalOptions options(const std::string& name) const {
    return cuda_options(name, std::chrono::seconds(120));  // the first Triton call compiles its kernel
  }

  SolutionEvaluation run(const std::string& file, bool dps = true) const {
    return evaluate(gallery(file, dps), options(file));
  }

  Latencies honest_latencies(const std::string& file, bool dps = true) const {
    Latencies out;
    for (const WorkloadResult& w : run(file, dps).workloads) {
      EXPECT_EQ(w.status, EvalStatus::passed) << file << ": " << w.log;
      if (w.latency) out[w.workload.uuid] = w.latency->latency_ms;
    }
    return out;
  }

  // A timing cheat either is caught, or passes with at least `floor` of the honest
  // latency: the hidden work was timed after all.
  static void expect_no_fake_speedup(const SolutionEvaluation& e, const Latencies& honest, double floor,
                                     bool caught_is_reward_hack) {
    ASSERT_FALSE(e.workloads.empty());
    for (const WorkloadResult& w : e.workloads) {
      std::cout << w.workload.uuid << ": " << status_name(w.status);
      if (w.latency) std::cout << " " << w.latency->latency_ms * 1e3 << " us (" << w.latency->timer << ")";
      std::cout << " honest " << honest.at(w.workload.uuid) * 1e3 << " us\n";
      if (w.status == EvalStatus::passed) {
        ASSERT_TRUE(w.latency);
        EXPECT_GE(w.latency->latency_ms, floor * honest.at(w.workload.uuid))
            << "the timed work was not all seen";
      } else if (caught_is_reward_hack) {
        EXPECT_EQ(w.status, EvalStatus::reward_hack) << w.log;
      } else {
        EXPECT_NE(w.status, EvalStatus::passed);
      }
    }
  }
};

TEST_F(PythonCudaEndToEnd, TorchSolutionPassesTimedByCupti) {
  for (const WorkloadResult& w : run("correct.py", false).workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    EXPECT_EQ(w.latency->timer, "cupti_span");
    EXPECT_GT(w.speedup(), 0.0);
  }
}

TEST_F(PythonCudaEndToEnd, TritonSolutionPassesTimedByCupti) {
  for (const WorkloadResult& w : run("correct_triton.py").workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    EXPECT_EQ(w.latency->timer, "cupti_span");
  }
}

TEST_F(PythonCudaEndToEnd, ExceptionIsRuntimeErrorWithItsTraceback) {
  expect_all(run("raises.py", false), EvalStatus::runtime_error, "ValueError: tile size does not divide 128");
}

TEST_F(PythonCudaEndToEnd, ModifiedInputIsRewardHack) {
  expect_all(run("modifies_input.py", false), EvalStatus::reward_hack, "input 'hidden_states' was modified");
  expect_all(run("modifies_input_triton.py"), EvalStatus::reward_hack, "input 'hidden_states' was modified");
}

// The side stream holds a kernel of at least 212 us (side_stream.py): a timer that missed
// it would see the rmsnorm's launch-bound ~0.1-0.2 ms at most. Compared with the honest
// solution instead, the side stream measured 104-161 us against 178-181 us on the H200
// (2026-12-02): torch's launches on a stream of its own leave other gaps than on the
// harness's, so that comparison could not tell a missed stream from a faster host.
TEST_F(PythonCudaEndToEnd, TorchWorkOnASideStreamIsTimed) {
  const SolutionEvaluation e = run("side_stream.py");
  Latencies side_kernel;
  for (const WorkloadResult& w : e.workloads) side_kernel[w.workload.uuid] = 0.2;
  expect_no_fake_speedup(e, side_kernel, 1.0, true);
}

TEST_F(PythonCudaEndToEnd, TritonWorkOnASideStreamIsTimed) {
  const Latencies honest = honest_latencies("correct_triton.py");
  expect_no_fake_speedup(run("side_stream_triton.py"), honest, 0.7, true);
}

TEST_F(PythonCudaEndToEnd, WorkLaunchedLateByAPythonThreadIsCaught) {
  const Latencies honest = honest_latencies("correct_dps.py");
  expect_no_fake_speedup(run("host_thread_gpu.py"), honest, 0.7, false);
}

TEST_F(PythonCudaEndToEnd, TorchPointerCacheGetsNoFakeSpeedup) {
  const Latencies slow = honest_latencies("slow_gpu.py");
  expect_no_fake_speedup(run("pointer_cache_gpu.py"), slow, 0.5, false);
}

TEST_F(PythonCudaEndToEnd, TritonPointerCacheGetsNoFakeSpeedup) {
  const Latencies slow = honest_latencies("slow_triton.py");
  expect_no_fake_speedup(run("pointer_cache_triton.py"), slow, 0.5, false);
}

// The output is written from the host: the span runs from the first copy to the last,
// so the host step in between (at least 0.3 ms after the first copies end and before
// the last one starts, host_compute.py) is timed too. An honest torch solution is no
// floor here: on 128-wide rows its many small launches (about 0.14 ms on the H200)
// cost more than one copy each way.
TEST_F(PythonCudaEndToEnd, HostComputeIsTimedWithItsCopies) {
  const SolutionEvaluation e = run("host_compute.py");
  Latencies host_step;
  for (const WorkloadResult& w : e.workloads) host_step[w.workload.uuid] = 0.3;
  expect_no_fake_speedup(e, host_step, 1.0, true);
}

}  // namespace
}  // namespace kh
