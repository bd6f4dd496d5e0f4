// `kharness profile` end to end on the CPU backend: it says what it is doing step by
// step, writes both reports, and refuses bad requests with a reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "archive/archive.h"
#include "kharness_command.h"
#include "support/temp_dir.h"

namespace {

using kh::cli_test::CommandResult;
using kh::cli_test::run;

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

TEST(ProfileCommand, ReportsEachStepAsItGoesAndWritesBothReports) {
  kh::test::TempDir dir;
  const CommandResult r =
      run("profile --definition rmsnorm_h4096 --baseline --backend cpu --small --out " + quoted(dir / "p"));
  ASSERT_EQ(r.status, 0) << r.out;

  std::ifstream json_file(dir / "p" / "profile.json");
  ASSERT_TRUE(json_file) << "no profile.json";
  const nlohmann::json report = nlohmann::json::parse(json_file);
  const std::size_t regimes = report.at("regimes").size();
  ASSERT_GE(regimes, 1u);
  EXPECT_TRUE(std::filesystem::exists(dir / "p" / "profile.md"));

  // One line when the regimes are known, then one per representative, in order, each
  // before the report is written.
  const std::size_t planned = r.out.find(" regime(s) over ");
  ASSERT_NE(planned, std::string::npos) << r.out;
  std::size_t at = planned;
  for (std::size_t i = 1; i <= regimes; ++i) {
    const std::string line = "kharness profile: evaluated " + std::to_string(i) + "/" +
                             std::to_string(regimes) + ": regime " +
                             report["regimes"][i - 1].at("name").get<std::string>();
    const std::size_t next = r.out.find(line, at);
    ASSERT_NE(next, std::string::npos) << "missing or out of order: " << line << "\n" << r.out;
    at = next;
  }
  EXPECT_LT(at, r.out.find("wrote ")) << r.out;

  // Each regime names its members, the representative among them, and the regimes
  // partition the workloads: a full sweep's traces can be grouped the same way.
  std::set<std::string> seen;
  std::size_t members = 0;
  for (const auto& regime : report["regimes"]) {
    const auto& uuids = regime.at("members");
    ASSERT_EQ(uuids.size(), regime.at("workloads").get<std::size_t>()) << regime.dump();
    EXPECT_NE(std::find(uuids.begin(), uuids.end(), regime.at("representative")), uuids.end())
        << regime.dump();
    for (const auto& uuid : uuids) seen.insert(uuid.get<std::string>());
    members += uuids.size();
  }
  EXPECT_EQ(seen.size(), members) << "a workload in two regimes";
}

TEST(ProfileCommand, ArchivesTheEvidenceWithTheCandidate) {
  kh::test::TempDir dir;
  const CommandResult r =
      run("profile --definition rmsnorm_h4096 --baseline --backend cpu --small --json --out " +
              quoted(dir / "p") + " --archive " + quoted(dir / "a"),
          kh::cli_test::Stderr::dropped);
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json printed = nlohmann::json::parse(r.out);
  const std::size_t regimes = printed.at("regimes").size();
  const auto& archived = printed.at("archived");
  EXPECT_EQ(archived.at("profiles"), 2) << "the report as JSON and as Markdown (no ncu on the CPU)";

  kh::archive::Archive store = kh::archive::Archive::open_existing(dir / "a");
  auto& db = store.db();
  // The representatives' evaluation is a run of the solution, one trace per regime.
  const std::string run_id = std::to_string(archived.at("run_id").get<std::int64_t>());
  EXPECT_EQ(db.query_int("SELECT COUNT(*) FROM traces WHERE run_id = " + run_id),
            static_cast<std::int64_t>(regimes));
  EXPECT_EQ(
      db.query_text("SELECT s.content_id FROM runs r JOIN solutions s ON s.id = r.solution_id WHERE r.id = " +
                    run_id),
      archived.at("solution_content_id").get<std::string>());
  // The report, byte for byte as printed, attached to that solution and run.
  EXPECT_EQ(db.query_int("SELECT COUNT(*) FROM profiles WHERE run_id = " + run_id), 2);
  const std::string blob = db.query_text("SELECT blob FROM profiles WHERE kind = 'diagnosis'");
  const nlohmann::json stored = nlohmann::json::parse(store.blobs().read(blob));
  EXPECT_EQ(stored.at("regimes"), printed.at("regimes"));
  const nlohmann::json summary =
      nlohmann::json::parse(db.query_text("SELECT summary_json FROM profiles WHERE kind = 'diagnosis'"));
  ASSERT_EQ(summary.at("regimes").size(), regimes);
  EXPECT_EQ(summary["regimes"][0].at("status"), "PASSED");
  const std::string md = db.query_text("SELECT blob FROM profiles WHERE kind = 'diagnosis_markdown'");
  EXPECT_EQ(store.blobs().read(md).rfind("# Profile: ", 0), 0u);
}

TEST(ProfileCommand, AnArchiveThatCannotBeOpenedFailsBeforeTheProfile) {
  kh::test::TempDir dir;
  const auto not_a_folder = dir.write("file.txt", "x");
  const CommandResult r = run("profile --definition rmsnorm_h4096 --baseline --backend cpu --small --out " +
                              quoted(dir / "p") + " --archive " + quoted(not_a_folder));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(not_a_folder.string()), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("evaluated 1/"), std::string::npos)
      << "the profile ran before the archive was checked";
}

TEST(ProfileCommand, NeedsASolutionOrTheBaseline) {
  const CommandResult r = run("profile --definition rmsnorm_h4096 --backend cpu");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("needs --solution FILE or --baseline"), std::string::npos) << r.out;
}

TEST(ProfileCommand, AMissingSolutionFileIsNamed) {
  const CommandResult r =
      run("profile --definition rmsnorm_h4096 --backend cpu --solution /nonexistent/s.json");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("/nonexistent/s.json"), std::string::npos) << r.out;
}

TEST(ProfileCommand, AnUnknownDefinitionIsAnErrorNotACrash) {
  kh::test::TempDir dir;
  const CommandResult r =
      run("profile --definition no_such_op --baseline --backend cpu --out " + quoted(dir / "p"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no_such_op"), std::string::npos) << r.out;
}

TEST(ProfileCommand, NeedsADefinition) {
  const CommandResult r = run("profile --baseline --backend cpu");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("needs --definition NAME"), std::string::npos) << r.out;
}

// A stored report diagnosed again: the evidence kept, the diagnosis today's. The kernels of
// this one are the indexer's small regime as ncu measured them on the H200 (2026-12-04b).
TEST(ProfileCommand, RediagnoseKeepsTheEvidenceAndRenewsTheDiagnosis) {
  kh::test::TempDir dir;
  const nlohmann::ordered_json stored = {
      {"definition", "d"},
      {"solution", "s"},
      {"static_warnings", nlohmann::ordered_json::array()},
      {"regimes",
       {{{"name", "small"},
         {"axes", "batch_size 1..14"},
         {"latency_ms", 0.0139},
         {"sol_fraction", 0.064},
         {"bottleneck", "latency"},
         {"bottleneck_reason", "the old reason"},
         {"kernels",
          {{{"kernel", "<unnamed>::mma_score_kernel(const unsigned char *)"},
            {"duration_us", 6.18},
            {"sm_throughput_pct", 10.45},
            {"memory_throughput_pct", 8.95},
            {"waves_per_sm", 0.57},
            {"top_stalls", {{{"reason", "long_scoreboard"}, {"value", 3.15}}}}},
           {{"kernel", "<unnamed>::select_kernel(const float *)"},
            {"duration_us", 8.54},
            {"sm_throughput_pct", 1.0},
            {"memory_throughput_pct", 1.0},
            {"waves_per_sm", 0.02},
            {"top_stalls", {{{"reason", "wait"}, {"value", 2.49}}}}}}},
         {"directions", nlohmann::ordered_json::array()}},
        {{"name", "no ncu"}, {"latency_ms", 1.0}, {"bottleneck", "memory"}, {"bottleneck_reason", "kept"}}}}};
  const auto file = dir.write("profile.json", stored.dump(2));
  const CommandResult r = run("profile --rediagnose " + quoted(file) + " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json out = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  const auto& small = out.at("regimes").at(0);
  EXPECT_EQ(small.at("kernels"), nlohmann::json(stored["regimes"][0]["kernels"])) << "the evidence is kept";
  const std::string reason = small.at("bottleneck_reason");
  EXPECT_NE(reason.find("select_kernel (8.5 of the call's 13.9 us"), std::string::npos) << reason;
  EXPECT_FALSE(small.at("directions").empty());
  EXPECT_EQ(out.at("regimes").at(1).at("bottleneck_reason"), "kept") << "no ncu metrics: nothing to renew";
  EXPECT_TRUE(out.at("rediagnosed").get<bool>());
}

// The memory units a report stored are read back. The kernel is shaped like MoE's GEMM1 at 14107
// tokens (H100, 2026-12-07); its split by unit is made up: L2 the busy unit, DRAM well below it.
TEST(ProfileCommand, RediagnoseReadsTheMemoryUnitsAndPointsAnL2BoundKernelToReuse) {
  kh::test::TempDir dir;
  const nlohmann::ordered_json stored = {
      {"regimes",
       {{{"name", "outlier 1"},
         {"latency_ms", 3.72},
         {"sol_fraction", 0.447},
         {"kernels",
          {{{"kernel", "void ws::fp8_gemm_ws_tma_scales<1, 1>(CUtensorMap_st, ws::Args)"},
            {"duration_us", 1818.75},
            {"sm_throughput_pct", 53.0},
            {"memory_throughput_pct", 81.0},
            {"dram_throughput_pct", 45.0},
            {"l2_throughput_pct", 80.0},
            {"l1_throughput_pct", 57.0},
            {"waves_per_sm", 1.0}}}}}}}};
  const auto file = dir.write("profile.json", stored.dump(2));
  const CommandResult r = run("profile --rediagnose " + quoted(file) + " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json regime = nlohmann::json::parse(r.out.substr(r.out.find('{'))).at("regimes").at(0);
  const std::string reason = regime.at("bottleneck_reason");
  EXPECT_NE(reason.find("by unit: L2 80%, L1 57%, DRAM 45%"), std::string::npos) << reason;
  bool reuse = false;
  for (const auto& d : regime.at("directions"))
    reuse = reuse || (d.at("family") == "data_reuse" &&
                      d.at("why").get<std::string>().find("L2 at 80%") != std::string::npos);
  EXPECT_TRUE(reuse) << regime.at("directions").dump();
}

TEST(ProfileCommand, RediagnoseNamesTheFileAndFieldOfAMalformedReport) {
  kh::test::TempDir dir;
  const auto file =
      dir.write("profile.json", R"({"regimes": [{"name": "x", "kernels": [{"kernel": "k"}]}]})");
  const CommandResult r = run("profile --rediagnose " + quoted(file));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(file.string() + ": regimes[0].latency_ms: missing"), std::string::npos) << r.out;
  const auto not_json = dir.write("notes.txt", "hello");
  const CommandResult bad = run("profile --rediagnose " + quoted(not_json));
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_NE(bad.out.find("not valid JSON"), std::string::npos) << bad.out;
  const auto typed = dir.write(
      "typed.json",
      R"({"regimes": [{"latency_ms": 1, "kernels": [{"kernel": "k", "duration_us": 1, "sm_throughput_pct": 1,)"
      R"( "memory_throughput_pct": 1, "top_stalls": [{"reason": "wait", "value": "high"}]}]}]})");
  const CommandResult wrong = run("profile --rediagnose " + quoted(typed));
  EXPECT_EQ(wrong.status, 2) << wrong.out;
  EXPECT_NE(wrong.out.find("regimes[0].kernels[0].top_stalls[0].value: of the wrong type"), std::string::npos)
      << wrong.out;
  const CommandResult both = run("profile --rediagnose " + quoted(file) + " --baseline");
  EXPECT_NE(both.status, 0) << both.out;
}

}  // namespace
