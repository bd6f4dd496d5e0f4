// What an export changes for flashinfer-bench, and that the changes are sound: REWARD_HACK
// lines become RUNTIME_ERROR with the reason kept (and come back as REWARD_HACK on
// import), a kharness-binding solution becomes a tvm-ffi one that still builds and passes
// (here, under kharness's own tvm-ffi binding on the CPU), upstream files stay byte for
// byte. tests/archive/upstream_load_test.sh loads a whole export with upstream's loader.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "archive/document_rows.h"
#include "archive/upstream_solution.h"
#include "archive/upstream_trace.h"
#include "compile/tvm_ffi_runtime.h"
#include "eval/evaluator.h"
#include "eval/operator_library.h"
#include "trace/json_io.h"
#include "trace/json_text.h"

namespace kh::archive {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const fs::path kSource(KHARNESS_SOURCE_DIR);

std::string trace_line(const std::string& status, const std::string& log, const std::string& correctness) {
  return R"({"definition":"d","solution":"s","workload":{"uuid":"u","axes":{},"inputs":{}},"evaluation":{"status":")" +
         status + R"(","environment":{"hardware":"H200"},"timestamp":"t","log":")" + log +
         R"(","correctness":)" + correctness + R"(,"kharness":{"status":")" + status + R"("}}})";
}

TEST(UpstreamTrace, RewardHackBecomesRuntimeErrorWithTheReasonKept) {
  const auto out = upstream_trace_line(trace_line("REWARD_HACK", "input 'x' was modified", "null"));
  ASSERT_TRUE(out);
  const ordered_json j = parse_json_text(*out, Location{});
  EXPECT_EQ(j["evaluation"]["status"], "RUNTIME_ERROR");
  EXPECT_EQ(j["evaluation"]["log"], "REWARD_HACK: input 'x' was modified");
  EXPECT_EQ(j["evaluation"]["kharness"]["status"], "REWARD_HACK") << "kharness's block keeps the verdict";
  // Imported again, the archive reads kharness's verdict.
  EXPECT_EQ(trace_row(*out, Location{}).facts.status, "REWARD_HACK");
}

TEST(UpstreamTrace, NullErrorsBecomeNaNAndGoodLinesStayAsTheyAre) {
  const std::string nan_as_null =
      trace_line("INCORRECT_NUMERICAL", "", R"({"max_relative_error":null,"max_absolute_error":2})");
  const auto out = upstream_trace_line(nan_as_null);
  ASSERT_TRUE(out);
  EXPECT_NE(out->find(R"("max_relative_error":"NaN")"), std::string::npos) << *out;
  EXPECT_FALSE(upstream_trace_line(*out)) << "a line upstream takes is exported byte for byte";
  const std::string bare =
      trace_line("INCORRECT_NUMERICAL", "", R"({"max_relative_error":NaN,"max_absolute_error":Infinity})");
  EXPECT_FALSE(upstream_trace_line(bare));
  const auto renamed = upstream_trace_line(bare, std::string("s-2"));
  ASSERT_TRUE(renamed);
  EXPECT_NE(renamed->find(R"("solution":"s-2")"), std::string::npos);
}

TEST(UpstreamSolution, UpstreamFilesStayByteForByteAndGapsAreFilled) {
  const std::string example =
      read(fs::path(KHARNESS_SHARED_DIR) / "flashinfer-trace/solutions/gemm_n4096_k4096_example_tvmffi.json");
  if (!example.empty()) {
    const UpstreamSolution same = upstream_solution(example, {});
    ASSERT_TRUE(same.text);
    EXPECT_EQ(*same.text, example);
    EXPECT_TRUE(same.note.empty());
  }
  const std::string bare =
      R"({"name":"p","definition":"d","spec":{"language":"python","entry_point":"m.py::run"},"sources":[{"path":"m.py","content":""}]})";
  UpstreamSolutionInputs in;
  in.hardware = {"NVIDIA H200"};
  const UpstreamSolution filled = upstream_solution(bare, in);
  ASSERT_TRUE(filled.text);
  const ordered_json j = parse_json_text(*filled.text, Location{});
  EXPECT_EQ(j["author"], "unknown");
  EXPECT_EQ(j["spec"]["target_hardware"], ordered_json::array({"NVIDIA H200"}));
  EXPECT_EQ(j["sources"][0]["content"], "\n") << "upstream refuses empty sources";
}

TEST(UpstreamSolution, KharnessBindingWithoutItsDefinitionIsLeftOutWithANote) {
  const UpstreamSolution out =
      upstream_solution(read(kSource / "examples/solutions/rmsnorm_h128_cpu.json"), {});
  EXPECT_FALSE(out.text);
  EXPECT_NE(out.note.find("cannot be converted"), std::string::npos) << out.note;
}

// The converted example runs through the tvm-ffi binding: the adapter is right.
TEST(UpstreamSolution, ConvertedKharnessSolutionBuildsAndPassesAsTvmFfi) {
  try {
    (void)find_tvm_ffi(fs::path(KHARNESS_EXECUTABLE).parent_path());
  } catch (const Error& e) {
    GTEST_SKIP() << e.what();
  }
  const OperatorLibrary ops = OperatorLibrary::load(kSource / "operators");
  const OperatorEntry* op = ops.find("rmsnorm_h128");
  ASSERT_NE(op, nullptr);
  UpstreamSolutionInputs in;
  in.definition = &op->definition;
  const UpstreamSolution out =
      upstream_solution(read(kSource / "examples/solutions/rmsnorm_h128_cpu.json"), in);
  ASSERT_TRUE(out.text) << out.note;
  const Solution converted = parse_solution(*out.text);
  EXPECT_EQ(converted.spec.binding, "tvm-ffi");
  EXPECT_EQ(converted.spec.entry_point, "kh_tvm_ffi_entry.cpp::rmsnorm");
  bool ships_header = false;
  for (const SourceFile& f : converted.sources) ships_header |= f.path == "kharness/kernel.h";
  EXPECT_TRUE(ships_header) << "flashinfer-bench has no kharness headers";

  EvalOptions o;
  o.backend = "cpu";
  o.correctness_trials = 2;
  o.protocol.warmup = 1;
  o.protocol.iterations = 3;
  o.protocol.trials = 1;
  o.worker_executable = KHARNESS_EXECUTABLE;
  const fs::path scratch = fs::temp_directory_path() / ("kharness-upstream-" + std::to_string(::getpid()));
  o.work_dir = scratch / "work";
  o.cache_dir = scratch / "cache";
  std::vector<Workload> workloads = ops.workloads("rmsnorm_h128", true);
  const SolutionEvaluation e =
      evaluate_solution(ops.target(op->definition, workloads, op->dir, converted, "cpu"), o);
  fs::remove_all(scratch);
  ASSERT_EQ(e.candidate_build.status, BuildResult::Status::ok) << e.candidate_build.log;
  ASSERT_FALSE(e.workloads.empty());
  for (const WorkloadResult& w : e.workloads) EXPECT_EQ(w.status, EvalStatus::passed) << w.log;
}

}  // namespace
}  // namespace kh::archive
