// The harness end to end on the CUDA backend: real nvcc builds, real worker processes
// on the GPU, and a gallery of failing and cheating kernels
// (tests/eval/solutions/rmsnorm_h128_cuda/) that must each get the right status or,
// for the timing cheats, no fake speedup. Mirrors cpu_end_to_end_test.cpp. Every test
// skips where no CUDA device is present.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>

#include "end_to_end_fixture.h"
#include "timing/gpu_required.h"

namespace kh {
namespace {

using test::expect_all;
using test::expect_caught_while_timed;

const std::filesystem::path kSolutions =
    std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128_cuda";

// Latency per workload uuid, for comparing two solutions workload by workload.
using Latencies = std::map<std::string, double>;

class CudaEndToEnd : public test::EndToEndSuite {
 protected:
  void SetUp() override { KH_REQUIRE_GPU(); }

  EvalOptions options(const std::string& name) const { return cuda_options(name, std::chrono::seconds(60)); }

  static SolutionEvaluation run(const std::string& file, const EvalOptions& o, std::size_t workloads = 0) {
    return evaluate(test::gallery_solution(kSolutions, file, "cuda", {"rmsnorm_common.cuh", "slow_path.cuh"}),
                    o, workloads);
  }
  SolutionEvaluation run(const std::string& file) const { return run(file, options(file)); }

  // Latencies of an honest solution, every workload of which must pass.
  Latencies honest_latencies(const std::string& file) const {
    Latencies out;
    for (const WorkloadResult& w : run(file).workloads) {
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
      }
    }
  }
};

TEST_F(CudaEndToEnd, CorrectSolutionPassesTimedByCupti) {
  SolutionEvaluation e = run("correct.cu");
  ASSERT_EQ(e.candidate_build.status, BuildResult::Status::ok) << e.candidate_build.log;
  std::cout << "device: " << e.device.dump() << "\n";
  for (const WorkloadResult& w : e.workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    ASSERT_TRUE(w.latency && w.reference_latency);
    std::cout << w.workload.uuid << ": timer " << w.latency->timer << " latency "
              << w.latency->latency_ms * 1e3 << " us, reference " << w.reference_latency->latency_ms * 1e3
              << " us" << (w.latency->timer_note.empty() ? "" : ", note: " + w.latency->timer_note) << "\n";
    EXPECT_GT(w.latency->latency_ms, 0);
    if (w.latency->timer == "cupti_span") {
      EXPECT_TRUE(w.latency->timer_note.empty()) << w.latency->timer_note;
    } else {
      // CUPTI refused (e.g. insufficient privileges): the fallback must say why.
      EXPECT_EQ(w.latency->timer, "cuda_event");
      EXPECT_FALSE(w.latency->timer_note.empty())
          << "the event-timer fallback must explain why CUPTI is not used";
    }
    EXPECT_GT(w.speedup(), 0.2) << "a one-kernel solution against a one-kernel reference";
    EXPECT_LT(w.speedup(), 5.0);
    EXPECT_EQ(w.check_seeds.size(), 2u);
    EXPECT_NE(w.check_seeds[0], w.check_seeds[1]) << "every trial needs a fresh seed";
    // The reference computes the correctness seeds and every re-checked timed set in one
    // request before the candidate's checks (timing_plan.h): no re-check waits for it.
    EXPECT_EQ(w.requests.at("reference").at("check_sets").value("count", 0.0), 1.0) << w.requests.dump();
    // The candidate's correctness trials, in one request too.
    EXPECT_EQ(w.requests.at("candidate").at("check_sets").value("count", 0.0), 1.0) << w.requests.dump();
    EXPECT_FALSE(w.requests.at("candidate").contains("check")) << w.requests.dump();
    EXPECT_EQ(w.requests.at("candidate").at("timed_outputs").value("count", 0.0),
              static_cast<double>(w.latency->trial_medians_ms.size()))
        << w.requests.dump();
  }
}

// Seen on the H200: the dsa top-k and MoE baselines, which take scratch with
// cudaMallocAsync per call, were called timer tampering until the worker kept the
// stream-ordered pool's memory between calls.
TEST_F(CudaEndToEnd, PerCallAsyncScratchIsNotTampering) {
  for (const WorkloadResult& w : run("async_scratch.cu").workloads)
    EXPECT_EQ(w.status, EvalStatus::passed) << w.log;
}

// The CUPTI library is in the worker's process, so a candidate can switch kernel records off
// around work it wants unseen; the CUDA events around the call still see it.
TEST_F(CudaEndToEnd, KernelsHiddenFromCuptiAreRewardHack) {
  expect_all(run("cupti_blind.cu"), EvalStatus::reward_hack, "CUPTI records are missing");
}

// ksplit_lean24 on the H200 (2026-12-05): one iteration of five with the events far beyond
// CUPTI's span was called timer tampering, in an honest candidate. Five iterations a trial
// here, as in the loop's gates.
TEST_F(CudaEndToEnd, AOneOffHostDelayIsNotTampering) {
  EvalOptions o = options("host_delay_once.cu");
  o.protocol.iterations = 5;
  const SolutionEvaluation e = run("host_delay_once.cu", o);
  ASSERT_FALSE(e.workloads.empty());
  bool noted = false;
  for (const WorkloadResult& w : e.workloads) {
    EXPECT_EQ(status_name(w.status), status_name(EvalStatus::passed)) << w.log;
    noted = noted || w.log.find("left out of the latency") != std::string::npos;
  }
  EXPECT_TRUE(noted) << "no timed iteration met the delay: the test does not test the rule";
}

// A helper process with a CUDA context of its own does the work (process_handoff.cu): the
// right answers, next to none of the time on the worker's timers. The driver lists the
// helper among the GPU's context holders, below the worker.
TEST_F(CudaEndToEnd, WorkHandedToAnotherProcessIsRewardHack) {
  EvalOptions o = options("process_handoff.cu");
  o.max_consecutive_failures = 0;  // every workload asked runs, each with the helper alive
  const SolutionEvaluation e = run("process_handoff.cu", o, 2);
  expect_all(e, EvalStatus::reward_hack, "holds a CUDA context of its own");
  for (const WorkloadResult& w : e.workloads) {
    std::cout << w.workload.uuid << ": " << w.log << "\n";
    ASSERT_TRUE(w.correctness) << w.log;
    EXPECT_TRUE(w.correctness->passed)
        << "caught for a wrong answer, not for the hand-off: " << w.correctness->reason << "\n"
        << w.log;
  }
}

TEST_F(CudaEndToEnd, WrongSolutionIsIncorrectNumerical) {
  expect_all(run("wrong.cu"), EvalStatus::incorrect_numerical, "within atol");
}

TEST_F(CudaEndToEnd, IllegalAddressIsRuntimeErrorAndTheRestStillRun) {
  EvalOptions o = options("illegal_address.cu");
  o.max_consecutive_failures = 0;  // every workload runs (consecutive_failures_test has the default)
  SolutionEvaluation e = run("illegal_address.cu", o);
  expect_all(e, EvalStatus::runtime_error, "cudaErrorIllegalAddress");
  EXPECT_EQ(e.workloads.size(), 5u);
  for (const WorkloadResult& w : e.workloads) {
    EXPECT_NE(w.log.find("worker replaced"), std::string::npos) << w.log;
    EXPECT_GE(w.worker_restarts, 1u) << "a sticky error must replace the worker";
  }
}

TEST_F(CudaEndToEnd, SpinningKernelIsTimeout) {
  EvalOptions o = options("hang");
  o.timeout = std::chrono::seconds(5);
  SolutionEvaluation e = run("hang.cu", o, 2);
  expect_all(e, EvalStatus::timeout, "timed out");
  EXPECT_EQ(e.workloads.size(), 2u);
}

TEST_F(CudaEndToEnd, UnwrittenOutputFails) {
  expect_all(run("unwritten.cu"), EvalStatus::incorrect_numerical, "NaN");
}

TEST_F(CudaEndToEnd, ZeroOutputFails) {
  expect_all(run("zeros.cu"), EvalStatus::incorrect_numerical, "all zeros");
}

TEST_F(CudaEndToEnd, ModifiedInputIsRewardHack) {
  expect_all(run("modifies_input.cu"), EvalStatus::reward_hack, "input 'hidden_states' was modified");
}

// Writes its input only from its 5th call on, inside the first workload's timed run: the
// hashes taken on the device before and after the timed loop must catch it there.
TEST_F(CudaEndToEnd, InputModifiedOnlyWhileTimedIsRewardHack) {
  SolutionEvaluation e = run("modifies_input_when_timed.cu");
  expect_all(e, EvalStatus::reward_hack, "input 'hidden_states' was modified");
  expect_caught_while_timed(e);
}

// CUPTI sees every stream and the timer synchronises the whole device, so work moved
// to another stream is timed; an event timer on the harness's stream alone would see
// next to nothing.
TEST_F(CudaEndToEnd, WorkOnASideStreamIsTimed) {
  const Latencies honest = honest_latencies("correct.cu");
  expect_no_fake_speedup(run("side_stream.cu"), honest, 0.7, true);
}

TEST_F(CudaEndToEnd, WorkFromADetachedThreadIsTimed) {
  const Latencies honest = honest_latencies("correct.cu");
  expect_no_fake_speedup(run("side_thread.cu"), honest, 0.7, true);
}

// pointer_cache.cu copies a cached result whenever one input buffer comes back with
// the same contents. The harness gives every timed iteration of a trial its own input
// set and fresh seeds to every trial, so the cache never hits and the slow path is
// what gets timed. This fails if timed iterations ever share an input buffer.
TEST_F(CudaEndToEnd, PointerCacheGetsNoFakeSpeedup) {
  const Latencies slow = honest_latencies("slow.cu");
  expect_no_fake_speedup(run("pointer_cache.cu"), slow, 0.5, false);
}

// Where input sets come round again (here the budget allows two a trial), the pointer
// cache's fingerprint matches on every later call of a set: the right answer, copied.
// Only the time gives it away, and the honest slow path must still pass the same way.
TEST_F(CudaEndToEnd, PointerCacheOnSetsThatComeRoundAgainIsRewardHack) {
  EvalOptions o = options("pointer_cache_reused");
  o.input_set_budget_bytes = 1;  // two sets a trial
  o.protocol.trials = 4;         // one first call of set 1 a trial; three decide
  for (const WorkloadResult& w : run("pointer_cache.cu", o).workloads) {
    EXPECT_EQ(w.status, EvalStatus::reward_hack) << w.log;
    EXPECT_NE(w.log.find("outputs cached across calls"), std::string::npos) << w.log;
  }
  EvalOptions honest = options("slow_reused");
  honest.input_set_budget_bytes = 1;
  honest.protocol.trials = 4;
  for (const WorkloadResult& w : run("slow.cu", honest).workloads)
    EXPECT_EQ(w.status, EvalStatus::passed) << w.log;
}

// Legal but slow: the span runs from the first copy's start to the last copy's end,
// so the host's work in between is timed too. It may pass, or be flagged when the
// event timer sees more than CUPTI (host work before the first copy), never be fast.
TEST_F(CudaEndToEnd, HostComputeIsTimedWithItsCopies) {
  const Latencies honest = honest_latencies("correct.cu");
  expect_no_fake_speedup(run("host_compute.cu"), honest, 1.0, true);
}

}  // namespace
}  // namespace kh
