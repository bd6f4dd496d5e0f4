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

}  // namespace
