// The harness end to end on the CPU backend: real builds, real worker processes, and
// a gallery of broken and cheating solutions that must each get the right status.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "end_to_end_fixture.h"

namespace kh {
namespace {

using test::expect_all;
using test::expect_caught_while_timed;

const std::filesystem::path kSolutions =
    std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128";

class CpuEndToEnd : public test::EndToEndSuite {
 protected:
  EvalOptions options(const std::string& name) const {
    return short_options("cpu", {2, 2, 10, 2, std::chrono::seconds(20)}, name);
  }

  static SolutionEvaluation run(const std::string& file, const EvalOptions& o) {
    return evaluate(test::gallery_solution(kSolutions, file, "cpp", {"rmsnorm_common.h"}), o);
  }
  SolutionEvaluation run(const std::string& file) const { return run(file, options(file)); }
};

TEST_F(CpuEndToEnd, CorrectSolutionPassesWithSaneSpeedup) {
  SolutionEvaluation e = run("correct.cpp");
  ASSERT_EQ(e.candidate_build.status, BuildResult::Status::ok) << e.candidate_build.log;
  for (const WorkloadResult& w : e.workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    ASSERT_TRUE(w.latency && w.reference_latency);
    EXPECT_GT(w.latency->latency_ms, 0);
    EXPECT_EQ(w.latency->timer, "steady_clock");
    EXPECT_GT(w.speedup(), 0.2) << "same algorithm as the reference";
    EXPECT_LT(w.speedup(), 5.0);
    EXPECT_EQ(w.check_seeds.size(), 2u);
    EXPECT_NE(w.check_seeds[0], w.check_seeds[1]) << "every trial needs a fresh seed";
    // The orchestrator's account of the workload: each step took time, and the parts
    // (comparing, re-checking) fit inside the steps they belong to.
    const auto& steps = w.orchestrator_ms;
    for (const char* step : {"correctness", "timing", "recheck", "compare"})
      EXPECT_GT(steps.value(step, 0.0), 0.0) << step << " in " << steps.dump();
    EXPECT_LT(steps.value("recheck", 0.0), steps.value("timing", 0.0)) << steps.dump();
    EXPECT_LT(steps.value("compare", 0.0), steps.value("correctness", 0.0) + steps.value("timing", 0.0))
        << steps.dump();
    EXPECT_GE(steps.value("workload", 0.0), steps.value("correctness", 0.0) + steps.value("timing", 0.0))
        << steps.dump();
    // The requests behind the steps: a check of the candidate per correctness trial, a
    // time request per timing trial and one fetch of re-checked outputs after each,
    // with the worker's own phases.
    const auto& cand = w.requests.at("candidate");
    const auto checks = static_cast<double>(w.check_seeds.size());
    const auto trials = static_cast<double>(w.latency->trial_medians_ms.size());
    EXPECT_EQ(cand.at("check").value("count", 0.0), checks) << w.requests.dump();
    EXPECT_EQ(cand.at("time").value("count", 0.0), trials) << w.requests.dump();
    EXPECT_EQ(cand.at("timed_outputs").value("count", 0.0), trials) << w.requests.dump();
    EXPECT_GT(cand.at("check").at("worker_ms").value("call", 0.0), 0.0) << w.requests.dump();
    EXPECT_GT(cand.at("timed_outputs").value("reply_bytes", 0.0), 0.0) << w.requests.dump();
    // The reference: on the CPU one check_sets a correctness seed (each ready beside the
    // candidate's check), and one a timing trial for all its re-checked seeds.
    EXPECT_EQ(w.requests.at("reference").at("check_sets").value("count", 0.0), checks + trials)
        << w.requests.dump();
    EXPECT_LE(cand.at("check").value("wall_ms", 0.0), steps.value("correctness", 0.0)) << w.requests.dump();
  }
}

TEST_F(CpuEndToEnd, FourTimesTheWorkIsMeasuredSlower) {
  EvalOptions o = options("slow");
  SolutionEvaluation e = run("slow.cpp", o);
  const WorkloadResult& biggest = e.workloads.back();  // batch 257: well above timer noise
  ASSERT_EQ(biggest.status, EvalStatus::passed) << biggest.log;
  EXPECT_LT(biggest.speedup(), 0.6);
}

TEST_F(CpuEndToEnd, WrongSolutionIsIncorrectNumerical) {
  expect_all(run("wrong.cpp"), EvalStatus::incorrect_numerical, "within atol");
}

TEST_F(CpuEndToEnd, SegfaultIsRuntimeErrorAndTheRestStillRun) {
  EvalOptions o = options("segfault.cpp");
  o.max_consecutive_failures = 0;  // every workload runs (consecutive_failures_test has the default)
  SolutionEvaluation e = run("segfault.cpp", o);
  expect_all(e, EvalStatus::runtime_error, "signal 11");
  EXPECT_EQ(e.workloads.size(), 5u);
  EXPECT_GE(e.workloads.back().worker_restarts, 1u);
}

TEST_F(CpuEndToEnd, InfiniteLoopIsTimeout) {
  EvalOptions o = options("hang");
  o.timeout = std::chrono::seconds(2);
  SolutionEvaluation e = run("hang.cpp", o);
  expect_all(e, EvalStatus::timeout, "timed out");
}

TEST_F(CpuEndToEnd, SignatureMismatchIsCompileErrorNamingTheArgument) {
  SolutionEvaluation e = run("bad_signature.cpp");
  EXPECT_EQ(e.candidate_build.status, BuildResult::Status::compile_error);
  expect_all(e, EvalStatus::compile_error, "weight");
}

TEST_F(CpuEndToEnd, ExceptionIsRuntimeErrorWithItsMessage) {
  expect_all(run("throws.cpp"), EvalStatus::runtime_error, "tile size does not divide 128");
}

TEST_F(CpuEndToEnd, MemoryBeyondTheWorkerLimitIsRuntimeError) {
  expect_all(run("memory_hog.cpp"), EvalStatus::runtime_error, "bad_alloc");
}

TEST_F(CpuEndToEnd, ExitingWithSuccessMidCallIsNotASuccess) {
  expect_all(run("exit_zero.cpp"), EvalStatus::runtime_error, "exited with code 0");
}

TEST_F(CpuEndToEnd, ForgedChannelMessageIsCaught) {
  SolutionEvaluation e = run("forge_channel.cpp");
  for (const WorkloadResult& w : e.workloads) EXPECT_NE(w.status, EvalStatus::passed) << w.log;
}

// A low bit of a timed output changed between the end of the loop and the fetch: inside
// every tolerance, so only the hashes the worker committed to as the loop ended see it.
TEST_F(CpuEndToEnd, TimedOutputsChangedAfterTheLoopAreRewardHack) {
  EvalOptions o = options("tampered");
  o.worker_executable = KHARNESS_TAMPERING_WORKER;
  expect_all(run("correct.cpp", o), EvalStatus::reward_hack, "changed after the timed run ended");
}

// On the CUDA backend a trial's re-checks are compared while the next trial's loop runs;
// here the same path runs on the CPU backend. It passes what passes, and catches what
// the re-checks catch one after the other: an output changed after the loop, and
// outputs right when checked but wrong when timed.
TEST_F(CpuEndToEnd, CorrectSolutionPassesWithRechecksBesideTheLoop) {
  EvalOptions o = options("beside");
  o.recheck_beside_loop = true;
  for (const WorkloadResult& w : run("correct.cpp", o).workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    EXPECT_GT(w.orchestrator_ms.value("compare", 0.0), 0.0) << w.orchestrator_ms.dump();
    EXPECT_EQ(w.requests.at("candidate").at("timed_outputs").value("count", 0.0),
              static_cast<double>(w.latency->trial_medians_ms.size()))
        << w.requests.dump();
  }
}

TEST_F(CpuEndToEnd, TimedOutputsChangedAfterTheLoopAreCaughtBesideTheNextLoop) {
  EvalOptions o = options("tampered-beside");
  o.worker_executable = KHARNESS_TAMPERING_WORKER;
  o.recheck_beside_loop = true;
  expect_all(run("correct.cpp", o), EvalStatus::reward_hack, "changed after the timed run ended");
}

TEST_F(CpuEndToEnd, WrongOnlyWhileTimedIsRewardHackOneAfterTheOtherOrBeside) {
  for (const bool beside : {false, true}) {
    EvalOptions o = options(beside ? "wrong-timed-beside" : "wrong-timed");
    o.recheck_beside_loop = beside;
    o.max_consecutive_failures = 0;
    const SolutionEvaluation e = run("wrong_when_timed.cpp", o);
    ASSERT_FALSE(e.workloads.empty());
    const WorkloadResult& first = e.workloads.front();
    EXPECT_EQ(status_name(first.status), status_name(EvalStatus::reward_hack)) << first.log;
    EXPECT_NE(first.log.find("produced wrong outputs although the checked call was right"), std::string::npos)
        << first.log;
    for (const WorkloadResult& w : e.workloads) EXPECT_NE(w.status, EvalStatus::passed) << w.log;
  }
}

// Wrong on some input sets whenever it meets them, timed or not: a timed output wrong on such a
// set is confirmed by an untimed call on the same seed (wrong as well) and one on the correctness
// seed (still right), and the verdict is INCORRECT_NUMERICAL, not REWARD_HACK. (The other way
// round, wrong_when_timed.cpp above stays REWARD_HACK: untimed, its correctness seed is wrong too.)
// Both ways the re-checks run: one after the other, and (CUDA's way) beside the next trial's
// loop, where the untimed calls come after that trial's time request.
TEST_F(CpuEndToEnd, WrongOnSomeInputsIsIncorrectNotRewardHack) {
  for (const bool beside : {false, true}) {
    EvalOptions o = options(beside ? "wrong-on-some-beside" : "wrong-on-some");
    o.recheck_beside_loop = beside;
    o.max_consecutive_failures = 0;
    o.correctness_trials = 1;
    o.seed = 20261205;  // fixed, so that some workload passes its check and meets a wrong set when timed
    const SolutionEvaluation e = run("wrong_on_some_inputs.cpp", o);
    int confirmed = 0;
    for (const WorkloadResult& w : e.workloads) {
      EXPECT_NE(status_name(w.status), status_name(EvalStatus::reward_hack))
          << "beside " << beside << ": " << w.log;
      if (w.log.find("wrong untimed on this seed as well") == std::string::npos) continue;
      ++confirmed;
      EXPECT_EQ(status_name(w.status), status_name(EvalStatus::incorrect_numerical)) << w.log;
      ASSERT_TRUE(w.correctness.has_value()) << w.log;
      EXPECT_FALSE(w.correctness->passed) << w.log;
    }
    EXPECT_GT(confirmed, 0) << "beside " << beside
                            << ": no workload met a wrong input set only when timed: pick another fixed seed";
  }
}

// A well-framed reply whose fields have the wrong types (call_ms: "slow") is a verdict on
// the candidate that could have written it, and the run goes on to the next workload.
TEST_F(CpuEndToEnd, MalformedReplyIsRewardHackNotTheEndOfTheRun) {
  EvalOptions o = options("malformed");
  o.worker_executable = KHARNESS_MALFORMED_REPLY_WORKER;
  o.max_consecutive_failures = 0;
  const SolutionEvaluation e = run("correct.cpp", o);
  EXPECT_EQ(e.workloads.size(), 5u);
  expect_all(e, EvalStatus::reward_hack, "malformed reply");
}

TEST_F(CpuEndToEnd, UnwrittenOutputFails) {
  expect_all(run("unwritten.cpp"), EvalStatus::incorrect_numerical, "NaN");
}

TEST_F(CpuEndToEnd, ZeroOutputFails) {
  expect_all(run("zeros.cpp"), EvalStatus::incorrect_numerical, "all zeros");
}

TEST_F(CpuEndToEnd, ConstantOutputFails) {
  expect_all(run("constant.cpp"), EvalStatus::incorrect_numerical, "constant");
}

TEST_F(CpuEndToEnd, ModifiedInputIsRewardHack) {
  expect_all(run("modifies_input.cpp"), EvalStatus::reward_hack, "input 'hidden_states' was modified");
}

// Writes its input only from its 5th call on, inside the first workload's timed run: the
// input hashes taken before and after the timed loop must catch it there.
TEST_F(CpuEndToEnd, InputModifiedOnlyWhileTimedIsRewardHack) {
  SolutionEvaluation e = run("modifies_input_when_timed.cpp");
  expect_all(e, EvalStatus::reward_hack, "input 'hidden_states' was modified");
  expect_caught_while_timed(e);
}

// Under load the detached thread may not even run before the outputs are read; then the
// outputs are unwritten. Either way it must never pass.
TEST_F(CpuEndToEnd, WorkOnAHiddenThreadIsCaught) {
  for (const WorkloadResult& w : run("hidden_thread.cpp").workloads) {
    EXPECT_TRUE(w.status == EvalStatus::reward_hack || w.status == EvalStatus::incorrect_numerical)
        << status_name(w.status) << ": " << w.log;
    if (w.status == EvalStatus::reward_hack) {
      EXPECT_NE(w.log.find("after the call returned"), std::string::npos);
    }
  }
}

// The same hand-off to a process that shares the worker's memory (clone(CLONE_VM), not a
// thread of the worker): its work after the call returned must be seen too.
// The orphan variant: its parent exits at once, so only the worker's adopting its orphans
// keeps the process where the probe looks.
TEST_F(CpuEndToEnd, WorkInAProcessSharingTheWorkersMemoryIsCaught) {
  for (const char* file : {"hidden_process.cpp", "hidden_orphan.cpp"}) {
    const Solution s =
        test::gallery_solution(kSolutions, file, "cpp", {"rmsnorm_common.h", "clone_handoff.h"});
    for (const WorkloadResult& w : evaluate(s, options(file)).workloads) {
      EXPECT_TRUE(w.status == EvalStatus::reward_hack || w.status == EvalStatus::incorrect_numerical)
          << file << ": " << status_name(w.status) << ": " << w.log;
      if (w.status == EvalStatus::reward_hack) {
        EXPECT_NE(w.log.find("after the call returned"), std::string::npos) << file;
      }
    }
  }
}

// A cache only pays when inputs repeat. Whatever these do, they must never pass with
// the latency of a cache hit (the 2 ms they spend computing must show).
TEST_F(CpuEndToEnd, PointerCacheGetsNoFakeSpeedup) {
  for (const WorkloadResult& w : run("pointer_cache.cpp").workloads) {
    if (w.status == EvalStatus::passed) {
      EXPECT_GT(w.latency->latency_ms, 1.5)
          << "a cached answer was timed: trial medians "
          << ::testing::PrintToString(w.latency->trial_medians_ms) << ", samples " << w.latency->stats.count
          << ", min " << w.latency->stats.min << ", workload " << w.workload.uuid;
    }
  }
}

// Input sets too big for one per iteration come round again (here the budget allows two a
// trial). The reuse check (eval/input_reuse_check.h) is CUDA's: on the CPU an honest call's
// first visit of a set is slower than its later ones, so the check would fail honest work.
TEST_F(CpuEndToEnd, ComputingOnSetsThatComeRoundAgainPasses) {
  EvalOptions o = options("correct_reused");
  o.input_set_budget_bytes = 1;
  o.protocol.trials = 4;
  for (const WorkloadResult& w : run("slow.cpp", o).workloads)
    EXPECT_EQ(w.status, EvalStatus::passed) << w.log;
}

TEST_F(CpuEndToEnd, ContentCacheGetsNoFakeSpeedup) {
  for (const WorkloadResult& w : run("content_cache.cpp").workloads) {
    if (w.status == EvalStatus::passed) {
      EXPECT_GT(w.latency->latency_ms, 1.5)
          << "a cached answer was timed: trial medians "
          << ::testing::PrintToString(w.latency->trial_medians_ms) << ", samples " << w.latency->stats.count
          << ", min " << w.latency->stats.min << ", workload " << w.workload.uuid;
    }
  }
}

// The reference's check of a trial runs while the candidate's does. Both sleep 300 ms a
// call, so three more trials cost 1.8 s one after the other and 0.9 s side by side;
// the difference of two runs (after one that builds) leaves the workers' start out.
TEST_F(CpuEndToEnd, ReferenceAndCandidateAreCheckedSideBySide) {
  const Solution sleeper = test::gallery_solution(kSolutions, "sleeps.cpp", "cpp", {"rmsnorm_common.h"});
  const OperatorEntry* op = ops_->find("rmsnorm_h128");
  const EvaluationTarget t{op->definition, {ops_->workloads("rmsnorm_h128", false).front()},
                           op->dir,        sleeper,
                           sleeper,        "default",
                           *op->tolerance, op->speed_of_light};
  auto seconds_for = [&](int trials) {
    EvalOptions o = options("side-by-side");
    o.correctness_trials = trials;
    o.time_candidate = false;  // correctness only: what is measured is the checks
    const auto t0 = std::chrono::steady_clock::now();
    const SolutionEvaluation e = evaluate_solution(t, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(e.all_passed());
    for (const WorkloadResult& w : e.workloads) EXPECT_FALSE(w.latency) << "no timing was asked for";
    return s;
  };
  seconds_for(1);  // builds the solution into the cache
  const double one = seconds_for(1);
  const double four = seconds_for(4);
  EXPECT_GT(four - one, 0.85) << "three more trials of 300 ms calls";
  EXPECT_LT(four - one, 1.5) << "one trial = " << one << " s, four = " << four << " s";
}

// A candidate that fails its first trial ends the workload: the reference, which checks
// the trials' seeds one by one beside it, stops after the one in flight instead of
// computing the seeds nobody will compare with (seconds each for a large CPU reference).
TEST_F(CpuEndToEnd, AFailedTrialStopsTheReferencesRemainingChecks) {
  const Solution thrower = test::gallery_solution(kSolutions, "throws.cpp", "cpp", {"rmsnorm_common.h"});
  const Solution sleeper = test::gallery_solution(kSolutions, "sleeps.cpp", "cpp", {"rmsnorm_common.h"});
  const OperatorEntry* op = ops_->find("rmsnorm_h128");
  const EvaluationTarget t{op->definition, {ops_->workloads("rmsnorm_h128", false).front()},
                           op->dir,        thrower,
                           sleeper,        "default",
                           *op->tolerance, op->speed_of_light};
  auto seconds_for = [&](int trials) {
    EvalOptions o = options("stops-reference");
    o.correctness_trials = trials;
    const auto t0 = std::chrono::steady_clock::now();
    const SolutionEvaluation e = evaluate_solution(t, o);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(e.workloads.at(0).status, EvalStatus::runtime_error) << e.workloads.at(0).log;
    return s;
  };
  seconds_for(1);  // builds both into the cache
  const double one = seconds_for(1);
  const double eight = seconds_for(8);
  // At most one more 300 ms reference call (the one that may have started as the
  // candidate failed); seven more would be 2.1 s.
  EXPECT_LT(eight - one, 0.7) << "one trial = " << one << " s, eight = " << eight << " s";
}

TEST_F(CpuEndToEnd, RobustProtocolReportsNoiseAndStops) {
  EvalOptions o = options("robust");
  o.protocol.kind = ProtocolKind::robust;
  o.protocol.stop.min_time_s = 0.05;
  o.protocol.stop.timeout_s = 3;
  o.protocol.stop.max_noise = 0.05;
  SolutionEvaluation e = run("correct.cpp", o);
  for (const WorkloadResult& w : e.workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    EXPECT_GE(w.latency->stats.count, 10u);
    EXPECT_FALSE(w.latency->stop_reason.empty());
    EXPECT_LE(w.latency->stats.ci_low, w.latency->stats.median);
  }
}

}  // namespace
}  // namespace kh
