// `kharness eval` on the shared FlashInfer-Trace sample. A definition is judged by
// kharness's own reference (operators/<name>/) when it ships one, and by the
// definition's PyTorch reference when it does not. Skips where ../shared is absent, as
// in a user's clone (and the PyTorch case where no Python has torch).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "eval/torch_required.h"
#include "kharness_command.h"

namespace {

namespace fs = std::filesystem;
using kh::cli_test::CommandResult;
using kh::cli_test::run;
using kh::cli_test::Stderr;

const fs::path kSource = KHARNESS_SOURCE_DIR;
const fs::path kSharedSet = fs::path(KHARNESS_SHARED_DIR) / "flashinfer-trace";
const fs::path kGemmSolution = kSource / "examples" / "solutions" / "gemm_n4096_k4096_cpu.json";

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The uuid of the contest's gemm_n4096_k4096 workload with M == 1 (the cheapest on a CPU).
std::string contest_gemm_uuid_with_m1() {
  std::ifstream in(kSharedSet / "workloads" / "gemm" / "gemm_n4096_k4096.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    if (j["workload"]["axes"]["M"] == 1) return j["workload"]["uuid"];
  }
  return {};
}

// Flags that keep a CPU run of one M = 1 workload to a few seconds.
const std::string kQuick = " --backend cpu --trials 1 --timing-trials 1 --warmup 0 --iterations 1";

TEST(CliEvalReference, SharedDefinitionIsJudgedByKharnessReference) {
  if (!fs::is_directory(kSharedSet)) GTEST_SKIP() << "../shared/flashinfer-trace is absent";
  const std::string uuid = contest_gemm_uuid_with_m1();
  ASSERT_FALSE(uuid.empty()) << "no M = 1 workload in the shared gemm_n4096_k4096 workloads";
  const CommandResult r = run("eval --definition gemm_n4096_k4096 --trace-set " + quoted(kSharedSet) +
                                  " --solution " + quoted(kGemmSolution) + " --operators " +
                                  quoted(kSource / "operators") + " --workload " + uuid + kQuick + " --json",
                              Stderr::dropped);
  ASSERT_EQ(r.status, 0) << r.out.substr(0, 4000);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["definition"], "gemm_n4096_k4096");
  EXPECT_EQ(j["solution"], "gemm_n4096_k4096_cpu_blocked");
  EXPECT_TRUE(j["all_passed"].get<bool>());
  ASSERT_EQ(j["traces"].size(), 1u);
  const auto& trace = j["traces"][0];
  EXPECT_EQ(trace["workload"]["uuid"], uuid) << "the contest's workload, not one of ours";
  EXPECT_EQ(trace["evaluation"]["status"], "PASSED") << trace["evaluation"]["log"];
  // The reference ran (and was timed): the C++ one of operators/gemm_n4096_k4096.
  EXPECT_GT(trace["evaluation"]["performance"]["reference_latency_ms"].get<double>(), 0);
}

// A shared definition kharness ships no reference for is judged by its own PyTorch
// reference, run by the worker's embedded Python: a value-returning PyTorch solution of
// gemm_n128_k2048 passes on the contest's M = 1 workload.
TEST(CliEvalReference, SharedDefinitionWithoutKharnessReferenceIsJudgedByItsPyTorchReference) {
  if (!fs::is_directory(kSharedSet)) GTEST_SKIP() << "../shared/flashinfer-trace is absent";
  KH_REQUIRE_TORCH();
  std::string uuid;
  {
    std::ifstream in(kSharedSet / "workloads" / "gemm" / "gemm_n128_k2048.jsonl");
    std::string line;
    while (uuid.empty() && std::getline(in, line)) {
      const auto j = nlohmann::json::parse(line);
      if (j["workload"]["axes"]["M"] == 1) uuid = j["workload"]["uuid"];
    }
  }
  ASSERT_FALSE(uuid.empty());
  const fs::path solution =
      fs::temp_directory_path() / ("kharness-gemm-python-" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(solution);
    out << nlohmann::json{{"name", "gemm_n128_k2048_torch"},
                          {"definition", "gemm_n128_k2048"},
                          {"author", "test"},
                          {"spec",
                           {{"language", "python"},
                            {"target_hardware", {"cpu"}},
                            {"entry_point", "main.py::run"},
                            {"destination_passing_style", false}}},
                          {"sources",
                           {{{"path", "main.py"}, {"content", "def run(A, B):\n    return A @ B.T\n"}}}}}
               .dump();
  }
  const CommandResult r = run("eval --definition gemm_n128_k2048 --trace-set " + quoted(kSharedSet) +
                                  " --solution " + quoted(solution) + " --operators " +
                                  quoted(kSource / "operators") + " --workload " + uuid + kQuick + " --json",
                              Stderr::dropped);
  fs::remove(solution);
  ASSERT_EQ(r.status, 0) << r.out.substr(0, 4000);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["traces"].size(), 1u);
  const auto& trace = j["traces"][0];
  EXPECT_EQ(trace["evaluation"]["status"], "PASSED") << trace["evaluation"]["log"];
  EXPECT_GT(trace["evaluation"]["performance"]["reference_latency_ms"].get<double>(), 0)
      << "the PyTorch reference ran and was timed";
}

// --reference native refuses the fallback, saying there is no native reference.
TEST(CliEvalReference, NativeReferenceOnlyIsRefusedWhereKharnessHasNone) {
  if (!fs::is_directory(kSharedSet)) GTEST_SKIP() << "../shared/flashinfer-trace is absent";
  const CommandResult r =
      run("eval --definition gemm_n128_k2048 --trace-set " + quoted(kSharedSet) + " --solution " +
          quoted(kSource / "examples/solutions/upstream/gemm_n128_k2048.json") + " --operators " +
          quoted(kSource / "operators") + " --reference native" + kQuick);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("error: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kharness has no native reference for definition 'gemm_n128_k2048'"),
            std::string::npos)
      << r.out;
}

// The example is the operator's CPU baseline inline; the two must not drift apart.
TEST(CliEvalReference, GemmExampleSolutionCarriesTheBaselineSources) {
  const auto j = nlohmann::json::parse(read_text(kGemmSolution));
  EXPECT_EQ(j["spec"]["binding"], "kharness");
  EXPECT_EQ(j["spec"]["language"], "cpp");
  ASSERT_EQ(j["sources"].size(), 1u);  // its conversions come from <kharness/host_float.h>
  const fs::path op = kSource / "operators" / "gemm_n4096_k4096";
  EXPECT_EQ(j["sources"][0]["path"], "gemm.cpp");
  EXPECT_EQ(j["sources"][0]["content"], read_text(op / "baseline.cpp"))
      << "sources[0] differs from baseline.cpp";
}

}  // namespace
