// Solutions with "binding": "tvm-ffi" end to end on the CPU backend: written as
// flashinfer-bench's are (tvm::ffi::TensorView arguments, TVM_FFI_DLL_EXPORT_TYPED_FUNC),
// built against apache-tvm-ffi's headers and library unmodified, and called from the
// worker under the same protocol as kharness-binding ones. A gallery of right, wrong and
// cheating ones (tests/eval/solutions/rmsnorm_h128_tvm_ffi/) must each get the right
// status. Skips where apache-tvm-ffi is not installed (scripts/setup.sh fetches it).
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "compile/tvm_ffi_runtime.h"
#include "end_to_end_fixture.h"

namespace kh {
namespace {

using test::expect_all;

const std::filesystem::path kSolutions =
    std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128_tvm_ffi";

class TvmFfiEndToEnd : public test::EndToEndSuite {
 protected:
  void SetUp() override {
    try {
      (void)find_tvm_ffi(std::filesystem::path(KHARNESS_EXECUTABLE).parent_path());
    } catch (const Error& e) {
      GTEST_SKIP() << e.what();
    }
  }

  EvalOptions options(const std::string& name) const {
    return short_options("cpu", {2, 1, 5, 1, std::chrono::seconds(60)}, name);
  }

  static Solution solution(const std::string& file, bool destination_passing = true) {
    Solution s = test::gallery_solution(kSolutions, file, "cpp", {"tvm_rmsnorm.h"});
    s.spec.binding = "tvm-ffi";
    if (!destination_passing) s.spec.destination_passing_style = false;
    return s;
  }

  SolutionEvaluation run(const Solution& s, const std::string& name) const {
    return evaluate(s, options(name), 3);
  }
};

TEST_F(TvmFfiEndToEnd, DestinationPassingSolutionPasses) {
  const SolutionEvaluation e = run(solution("correct.cpp"), "correct");
  ASSERT_EQ(e.candidate_build.status, BuildResult::Status::ok) << e.candidate_build.log;
  for (const WorkloadResult& w : e.workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    ASSERT_TRUE(w.latency);
    EXPECT_GT(w.latency->latency_ms, 0);
  }
}

// A cpp solution without a binding is a tvm-ffi one, as upstream reads it (the shared
// example solution has no binding field either).
TEST_F(TvmFfiEndToEnd, NoBindingMeansTvmFfi) {
  Solution s = solution("correct.cpp");
  s.spec.binding.reset();
  expect_all(run(s, "no_binding"), EvalStatus::passed, "");
}

TEST_F(TvmFfiEndToEnd, ValueReturningSolutionIsCheckedAndTimed) {
  const SolutionEvaluation e = run(solution("value_returning.cpp", false), "value_returning");
  ASSERT_EQ(e.candidate_build.status, BuildResult::Status::ok) << e.candidate_build.log;
  for (const WorkloadResult& w : e.workloads) {
    ASSERT_EQ(w.status, EvalStatus::passed) << w.log;
    ASSERT_TRUE(w.latency);
    EXPECT_GT(w.latency->latency_ms, 0);
  }
}

TEST_F(TvmFfiEndToEnd, ReturnedTensorOfTheWrongShapeIsIncorrectShape) {
  expect_all(run(solution("wrong_shape.cpp", false), "wrong_shape"), EvalStatus::incorrect_shape,
             "'output' of entry 'rmsnorm' has shape");
}

TEST_F(TvmFfiEndToEnd, DestinationPassingEntryDeclaredValueReturningIsACompileError) {
  const SolutionEvaluation e = run(solution("correct.cpp", false), "dps_as_value_returning");
  EXPECT_EQ(e.candidate_build.status, BuildResult::Status::compile_error);
  EXPECT_NE(e.candidate_build.message.find("kharness: entry 'rmsnorm' must take 2 arguments (the inputs)"),
            std::string::npos)
      << e.candidate_build.message;
}

TEST_F(TvmFfiEndToEnd, RaisedErrorIsARuntimeErrorWithItsMessage) {
  expect_all(run(solution("raises.cpp"), "raises"), EvalStatus::runtime_error,
             "raised ValueError: this kernel refuses every input");
}

TEST_F(TvmFfiEndToEnd, WrongSignatureIsACompileErrorNamingTheArgument) {
  const SolutionEvaluation e = run(solution("bad_signature.cpp"), "bad_signature");
  EXPECT_EQ(e.candidate_build.status, BuildResult::Status::compile_error);
  EXPECT_EQ(e.candidate_build.message,
            "kharness: entry 'rmsnorm' argument 2 ('weight', input bfloat16 tensor) must be "
            "tvm::ffi::TensorView, tvm::ffi::Tensor or DLTensor*");
  expect_all(e, EvalStatus::compile_error, "argument 2 ('weight'");
}

TEST_F(TvmFfiEndToEnd, EntryThatIsNotExportedIsACompileError) {
  const SolutionEvaluation e = run(solution("not_exported.cpp"), "not_exported");
  EXPECT_EQ(e.candidate_build.status, BuildResult::Status::compile_error);
  EXPECT_EQ(e.candidate_build.message,
            "kharness: entry 'rmsnorm' is not exported: the sources need "
            "TVM_FFI_DLL_EXPORT_TYPED_FUNC(rmsnorm, <function>)");
}

TEST_F(TvmFfiEndToEnd, InputMutationIsCaught) {
  expect_all(run(solution("modifies_input.cpp"), "modifies_input"), EvalStatus::reward_hack,
             "was modified by the solution");
}

TEST_F(TvmFfiEndToEnd, TorchBindingAndTilelangAreRefusedWithWhatToUseInstead) {
  Solution torch = solution("correct.cpp");
  torch.spec.binding = "torch";
  const SolutionEvaluation t = run(torch, "torch");
  EXPECT_EQ(t.candidate_build.status, BuildResult::Status::compile_error);
  EXPECT_NE(t.candidate_build.message.find("binding 'torch' (a torch C++ extension) is not supported"),
            std::string::npos)
      << t.candidate_build.message;
  EXPECT_NE(t.candidate_build.message.find("binding 'tvm-ffi'"), std::string::npos);
  Solution tilelang = solution("correct.cpp");
  tilelang.spec.language = "tilelang";
  tilelang.spec.binding.reset();
  const SolutionEvaluation l = run(tilelang, "tilelang");
  EXPECT_EQ(l.candidate_build.status, BuildResult::Status::compile_error);
  EXPECT_NE(l.candidate_build.message.find("language 'tilelang' is not supported"), std::string::npos)
      << l.candidate_build.message;
}

}  // namespace
}  // namespace kh
