// `kharness eval` on FlashInfer-Trace data it used to refuse or mishandle: a solution whose
// `definition` field names another definition is refused before anything runs (exit 1,
// both names said), and a workload with an axis of 0 (flashinfer-bench allows any value
// >= 0; a public gqa_paged workload has num_pages 0) is evaluated like any other. And the
// typed invocation other modules start `kharness eval` with (the profiler, under ncu)
// is one the command takes, flag for flag.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "eval/eval_invocation.h"
#include "kharness_command.h"

namespace {

namespace fs = std::filesystem;
using kh::cli_test::CommandResult;
using kh::cli_test::run;
using kh::cli_test::Stderr;

const fs::path kSource = KHARNESS_SOURCE_DIR;
const fs::path kSolution = kSource / "examples/solutions/rmsnorm_h128_cpu.json";

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

class EvalInterop : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kharness-eval-interop-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    setenv("KHARNESS_CACHE_DIR", (dir_ / "cache").c_str(), 1);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(EvalInterop, ASolutionOfAnotherDefinitionIsRefused) {
  const CommandResult r =
      run("eval --definition rmsnorm_h4096 --small --backend cpu --solution " + quoted(kSolution));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("solution 'rmsnorm_h128_cpu_rows' is a solution of definition 'rmsnorm_h128', not of "
                       "'rmsnorm_h4096'"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("compile"), std::string::npos) << "refused before anything is built: " << r.out;
}

TEST_F(EvalInterop, AnAxisOfZeroIsEvaluatedLikeAnyOther) {
  // A trace set with kharness's rmsnorm_h128 and two workloads, one of zero rows.
  const fs::path set = dir_ / "set";
  fs::create_directories(set / "definitions" / "rmsnorm");
  fs::create_directories(set / "workloads" / "rmsnorm");
  fs::copy_file(kSource / "operators/rmsnorm_h128/definition.json",
                set / "definitions/rmsnorm/rmsnorm_h128.json");
  std::ofstream(set / "workloads/rmsnorm/rmsnorm_h128.jsonl")
      << R"({"definition":"rmsnorm_h128","solution":null,"workload":{"uuid":"zero-rows","axes":{"batch_size":0},)"
         R"("inputs":{"hidden_states":{"type":"random"},"weight":{"type":"random"}}},"evaluation":null})"
      << "\n"
      << R"({"definition":"rmsnorm_h128","solution":null,"workload":{"uuid":"three-rows","axes":{"batch_size":3},)"
         R"("inputs":{"hidden_states":{"type":"random"},"weight":{"type":"random"}}},"evaluation":null})"
      << "\n";
  const CommandResult v = run("validate " + quoted(set));
  EXPECT_EQ(v.status, 0) << v.out;
  const CommandResult r =
      run("eval --trace-set " + quoted(set) +
              " --definition rmsnorm_h128 --backend cpu --trials 1 --iterations 3 --warmup 0"
              " --timing-trials 1 --json --solution " +
              quoted(kSolution),
          Stderr::dropped);
  EXPECT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_EQ(j["traces"].size(), 2u);
  for (const auto& t : j["traces"]) {
    EXPECT_EQ(t["evaluation"]["status"], "PASSED") << t.dump();
  }
  EXPECT_EQ(j["traces"][0]["workload"]["axes"]["batch_size"], 0);
  // Zero rows leave nothing to time (a correct CUDA call may launch nothing at all);
  // three rows are timed as usual.
  EXPECT_FALSE(j["traces"][0]["evaluation"]["kharness"].contains("latency")) << j["traces"][0].dump();
  EXPECT_NE(
      j["traces"][0]["evaluation"]["log"].get<std::string>().find("not timed: the outputs have no elements"),
      std::string::npos)
      << j["traces"][0].dump();
  EXPECT_TRUE(j["traces"][1]["evaluation"]["kharness"].contains("latency")) << j["traces"][1].dump();
}

// The profiler's way of starting an eval, through the real command: the flags exist,
// and each one does what the invocation says (the trials, no timing, those workloads
// in that order).
TEST_F(EvalInterop, TheTypedInvocationIsOneTheCommandTakes) {
  kh::EvalInvocation eval;
  eval.definition = "rmsnorm_h128";
  eval.solution = kSolution;
  eval.backend = "cpu";
  eval.correctness_trials = 2;
  eval.timing = false;
  eval.sandbox = "best";
  eval.workloads = {"c4baffdb-7951-52bc-af57-9cd40126df77", "4be9fa62-9ab2-50e2-a26c-6fbe40872ecc"};
  eval.gpus = "0";
  std::string args;
  for (const std::string& a : eval.arguments()) args += "'" + a + "' ";
  const CommandResult r = run(args + "--json", Stderr::dropped);
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_EQ(j["traces"].size(), 2u) << r.out;
  for (std::size_t i = 0; i < 2; ++i) {
    const nlohmann::json& t = j["traces"][i];
    EXPECT_EQ(t["workload"]["uuid"], eval.workloads[i]);
    EXPECT_EQ(t["evaluation"]["status"], "PASSED") << t.dump();
    EXPECT_EQ(t["evaluation"]["kharness"]["correctness_seeds"].size(), 2u) << t.dump();
    EXPECT_FALSE(t["evaluation"]["kharness"].contains("latency")) << t.dump();
  }
}

}  // namespace
