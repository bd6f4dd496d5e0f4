// Python solutions end to end on the CPU backend with real torch: the worker's embedded
// interpreter, DLPack tensors over the worker's buffers, value-returning and
// destination-passing entries, and a gallery of broken and cheating Python solutions
// (tests/eval/solutions/rmsnorm_h128_python/) that must each get the right status, under
// the same protocol as native code. Skips, saying why, where no Python has torch.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "end_to_end_fixture.h"
#include "eval/python/python_solution.h"
#include "torch_required.h"

namespace kh {
namespace {

using test::expect_all;
using test::expect_caught_while_timed;

const std::filesystem::path kSolutions =
    std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128_python";

// A solution of rmsnorm_h128 whose entry is `file`::rmsnorm, with the gallery's shared
// module beside it.
Solution python_solution(const std::string& file, bool destination_passing) {
  Solution s;
  s.name = std::filesystem::path(file).stem().string();
  s.definition = "rmsnorm_h128";
  s.spec.language = "python";
  s.spec.entry_point = file + "::rmsnorm";
  s.spec.destination_passing_style = destination_passing;
  s.sources.push_back({file, test::read_file(kSolutions / file), {}});
  s.sources.push_back({"rmsnorm_common.py", test::read_file(kSolutions / "rmsnorm_common.py"), {}});
  return s;
}

class PythonEndToEnd : public test::EndToEndSuite {
 protected:
  void SetUp() override { KH_REQUIRE_TORCH(); }

  EvalOptions options(const std::string& name) const {
    // 60 s a call: importing torch takes seconds on a loaded machine.
    return short_options("cpu", {2, 2, 10, 2, std::chrono::seconds(60)}, name);
  }

  SolutionEvaluation run(const std::string& file, bool dps = false, std::size_t workloads = 0) const {
    return evaluate(python_solution(file, dps), options(file), workloads);
  }
};

TEST_F(PythonEndToEnd, ValueReturningSolutionPasses) {
  // A fixed base seed: torch and the C++ reference may round a bf16 output one unit
  // apart, and one unit is 0.03125 from |y| = 4 up, which fresh inputs sometimes reach
  // (a CI run saw it). The bound below then holds the returned values to the reference's
  // rounding, far tighter than the tolerance that decides PASSED.
  EvalOptions o = options("correct.py");
  o.seed = 20261203;
  SolutionEvaluation e = evaluate(python_solution("correct.py", false), o);
  ASSERT_EQ(e.candidate_build.status, BuildResult::Status::ok) << e.candidate_build.log;
  for (const WorkloadResult& w : e.workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    ASSERT_TRUE(w.latency && w.reference_latency);
    EXPECT_EQ(w.latency->timer, "steady_clock");
    EXPECT_GT(w.latency->latency_ms, 0);
    EXPECT_LE(w.correctness->max_absolute_error, 0.0625) << "more than one bf16 unit below 16";
  }
}

TEST_F(PythonEndToEnd, DestinationPassingSolutionWritesTheHarnessBuffer) {
  for (const WorkloadResult& w : run("correct_dps.py", true).workloads)
    EXPECT_EQ(w.status, EvalStatus::passed) << w.log;
}

TEST_F(PythonEndToEnd, SixteenTimesTheWorkIsMeasuredSlower) {
  const SolutionEvaluation fast = run("correct.py");
  const SolutionEvaluation slow = run("slow.py");
  const WorkloadResult& f = fast.workloads.back();  // batch 257
  const WorkloadResult& s = slow.workloads.back();
  ASSERT_EQ(f.status, EvalStatus::passed) << f.log;
  ASSERT_EQ(s.status, EvalStatus::passed) << s.log;
  std::cout << "one call " << f.latency->latency_ms * 1e3 << " us, sixteen times the work "
            << s.latency->latency_ms * 1e3 << " us\n";
  EXPECT_GT(s.latency->latency_ms, 2.0 * f.latency->latency_ms);
}

TEST_F(PythonEndToEnd, SyntaxErrorIsCompileErrorFoundBeforeAnyCall) {
  SolutionEvaluation e = run("syntax_error.py");
  expect_all(e, EvalStatus::compile_error, "SyntaxError");
  for (const WorkloadResult& w : e.workloads) EXPECT_TRUE(w.check_seeds.empty()) << "nothing may run";
}

TEST_F(PythonEndToEnd, ImportErrorIsCompileError) {
  expect_all(run("import_error.py"), EvalStatus::compile_error, "kharness_no_such_module");
}

TEST_F(PythonEndToEnd, MissingEntryFunctionIsCompileError) {
  Solution s = python_solution("correct.py", false);
  s.spec.entry_point = "correct.py::rms_norm";
  expect_all(evaluate(s, options("missing_function")), EvalStatus::compile_error,
             "has no function 'rms_norm'");
}

TEST_F(PythonEndToEnd, EntryFileThatIsNotPythonIsCompileError) {
  Solution s = python_solution("correct.py", false);
  s.spec.entry_point = "kernel.cu::rmsnorm";
  expect_all(evaluate(s, options("not_python")), EvalStatus::compile_error, "must be a .py file");
}

TEST_F(PythonEndToEnd, ExceptionIsRuntimeErrorWithItsTraceback) {
  SolutionEvaluation e = run("raises.py");
  expect_all(e, EvalStatus::runtime_error, "ValueError: tile size does not divide 128");
  expect_all(e, EvalStatus::runtime_error, "raises.py\", line 3");
}

TEST_F(PythonEndToEnd, ReturnedShapeMismatchIsIncorrectShape) {
  expect_all(run("wrong_shape.py"), EvalStatus::incorrect_shape, "output 'output' has shape");
}

TEST_F(PythonEndToEnd, ReturnedDtypeMismatchIsIncorrectDtype) {
  expect_all(run("wrong_dtype.py"), EvalStatus::incorrect_dtype, "torch.float32");
}

TEST_F(PythonEndToEnd, WrongResultIsIncorrectNumerical) {
  expect_all(run("wrong.py"), EvalStatus::incorrect_numerical, "within atol");
}

TEST_F(PythonEndToEnd, UnwrittenOutputFails) {
  expect_all(run("unwritten.py", true), EvalStatus::incorrect_numerical, "NaN");
}

TEST_F(PythonEndToEnd, ZeroOutputFails) {
  expect_all(run("zeros.py", false, 2), EvalStatus::incorrect_numerical, "all zeros");
}

TEST_F(PythonEndToEnd, ExitingTheWorkerWithSuccessIsNotASuccess) {
  expect_all(run("exits.py", false, 2), EvalStatus::runtime_error, "exited with code 0");
}

TEST_F(PythonEndToEnd, SystemExitIsRuntimeError) {
  expect_all(run("system_exit.py", false, 2), EvalStatus::runtime_error, "SystemExit");
}

TEST_F(PythonEndToEnd, InfiniteLoopIsTimeout) {
  EvalOptions o = options("hang");
  o.timeout = std::chrono::seconds(20);  // the load (importing torch) must fit too
  expect_all(evaluate(python_solution("hang.py", false), o, 1), EvalStatus::timeout, "timed out");
}

TEST_F(PythonEndToEnd, ModifiedInputIsRewardHack) {
  expect_all(run("modifies_input.py", false, 2), EvalStatus::reward_hack,
             "input 'hidden_states' was modified");
}

TEST_F(PythonEndToEnd, InputModifiedOnlyWhileTimedIsRewardHack) {
  SolutionEvaluation e = run("modifies_input_when_timed.py");
  expect_all(e, EvalStatus::reward_hack, "input 'hidden_states' was modified");
  expect_caught_while_timed(e);
}

// The Python thread needs the interpreter; the harness releases it after every call, so
// the thread's late work shows as CPU burnt after the return (or the output is still
// poisoned when it is read). Either way it never passes.
TEST_F(PythonEndToEnd, WorkOnAHiddenPythonThreadIsCaught) {
  for (const WorkloadResult& w : run("hidden_thread.py", true).workloads) {
    EXPECT_TRUE(w.status == EvalStatus::reward_hack || w.status == EvalStatus::incorrect_numerical)
        << status_name(w.status) << ": " << w.log;
  }
}

// A cache only pays when inputs repeat. Whatever these do, they must never pass with the
// latency of a cache hit (the 2 ms they spend computing must show).
TEST_F(PythonEndToEnd, PointerCacheGetsNoFakeSpeedup) {
  for (const WorkloadResult& w : run("pointer_cache.py", true).workloads) {
    if (w.status == EvalStatus::passed) {
      EXPECT_GT(w.latency->latency_ms, 1.5) << "a cached answer was timed: " << w.workload.uuid;
    } else {  // a stale answer: caught in a re-check of a timed output, or in a checked call
      EXPECT_TRUE(w.status == EvalStatus::reward_hack || w.status == EvalStatus::incorrect_numerical)
          << status_name(w.status) << ": " << w.log;
    }
  }
}

TEST_F(PythonEndToEnd, ContentCacheGetsNoFakeSpeedup) {
  for (const WorkloadResult& w : run("content_cache.py", true).workloads) {
    if (w.status == EvalStatus::passed) {
      EXPECT_GT(w.latency->latency_ms, 1.5) << "a cached answer was timed: " << w.workload.uuid;
    } else {  // a stale answer: caught in a re-check of a timed output, or in a checked call
      EXPECT_TRUE(w.status == EvalStatus::reward_hack || w.status == EvalStatus::incorrect_numerical)
          << status_name(w.status) << ": " << w.log;
    }
  }
}

// The definition's own PyTorch reference as the reference: kharness's C++ reference,
// evaluated as a candidate against it, passes.
TEST_F(PythonEndToEnd, PyTorchReferenceServesAsTheReference) {
  const OperatorEntry* op = ops_->find("rmsnorm_h128");
  const EvaluationTarget t{op->definition,
                           ops_->workloads("rmsnorm_h128", false),
                           op->dir,
                           ops_->reference("rmsnorm_h128", "cpu"),
                           definition_reference(op->definition),
                           "default",
                           *op->tolerance,
                           op->speed_of_light};
  const SolutionEvaluation e = evaluate_solution(t, options("pytorch_reference"));
  ASSERT_EQ(e.reference_build.status, BuildResult::Status::ok) << e.reference_build.log;
  for (const WorkloadResult& w : e.workloads) {
    EXPECT_EQ(w.status, EvalStatus::passed) << w.log;
    EXPECT_TRUE(w.reference_latency) << "the PyTorch reference is timed like any solution";
  }
}

}  // namespace
}  // namespace kh
