// kharness eval --archive, then kharness rerun from the archive alone (another working
// folder, no operators folder reachable): same statuses, same seeds, similar latency.
#include <gtest/gtest.h>

#include "archive/archive.h"
#include "archive/archive_check.h"
#include "archive_fixtures.h"

namespace kh::archive {
namespace {

using test::quoted;
using test::run_command;
using test::TempDir;
using json = nlohmann::ordered_json;

std::string kharness(const std::string& args) { return std::string("'") + KHARNESS_EXECUTABLE + "' " + args; }

json parse_output(const std::string& out) { return json::parse(out.substr(out.find("\n{") + 1)); }

TEST(Rerun, ReproducesACpuMeasurementFromTheArchiveAlone) {
  TempDir dir;
  const std::string solution = std::string(KHARNESS_SOURCE_DIR) + "/examples/solutions/rmsnorm_h128_cpu.json";
  auto r =
      run_command(kharness("eval --definition rmsnorm_h128 --small --backend cpu --solution '" + solution +
                           "' --warmup 2 --iterations 20 --trials 2 --timing-trials 2 --json --archive " +
                           quoted(dir / "a") + " --agent test --hypothesis 'rows in order'"));
  ASSERT_EQ(r.status, 0) << r.out;
  const json eval = parse_output(r.out);
  ASSERT_EQ(eval["archive"]["run_id"], 1);

  // Another working folder, and an operators folder that does not exist: whatever
  // rerun needs must come from the archive.
  r = run_command("cd " + quoted(dir.path()) + " && KHARNESS_OPERATORS=/nonexistent " +
                  kharness("rerun 1 --archive a --json"));
  ASSERT_EQ(r.status, 0) << r.out;
  const json re = parse_output(r.out);
  EXPECT_EQ(re["statuses_equal"], true);
  EXPECT_EQ(re["same_seed"], true);
  EXPECT_EQ(re["new_run_id"], 2);
  ASSERT_EQ(re["workloads"].size(), eval["traces"].size());
  for (std::size_t i = 0; i < re["workloads"].size(); ++i) {
    const json& w = re["workloads"][i];
    EXPECT_EQ(w["workload"], eval["traces"][i]["workload"]["uuid"]);
    EXPECT_EQ(w["before"]["status"], "PASSED");
    EXPECT_EQ(w["now"]["status"], "PASSED");
    EXPECT_DOUBLE_EQ(w["before"]["latency_ms"].get<double>(),
                     eval["traces"][i]["evaluation"]["performance"]["latency_ms"].get<double>());
    // A loaded 2-core machine: generous, but a wrong kernel or lost workload is caught.
    const double ratio = w["latency_ratio"].get<double>();
    EXPECT_GT(ratio, 0.1) << w.dump();
    EXPECT_LT(ratio, 10.0) << w.dump();
  }

  Archive a = Archive::open_existing(dir / "a");
  EXPECT_EQ(a.db().query_int("SELECT rerun_of FROM runs WHERE id = 2"), 1);
  EXPECT_EQ(a.db().query_text("SELECT origin FROM runs WHERE id = 2"), "rerun");
  EXPECT_EQ(a.db().query_int("SELECT count(DISTINCT solution_id) FROM runs"), 1) << "the same solution row";
  EXPECT_EQ(a.db().query_text("SELECT agent FROM solutions WHERE role = 'candidate'"), "test");
  // Same recorded seed: the correctness trials saw the same inputs.
  EXPECT_EQ(
      a.db().query_int("SELECT count(*) FROM traces t1 JOIN traces t2 ON t1.workload_uuid = t2.workload_uuid "
                       "AND t1.run_id = 1 AND t2.run_id = 2 AND json_extract(t1.line, "
                       "'$.evaluation.kharness.correctness_seeds') = json_extract(t2.line, "
                       "'$.evaluation.kharness.correctness_seeds')"),
      static_cast<std::int64_t>(re["workloads"].size()));
  EXPECT_GT(a.db().query_int("SELECT count(*) FROM samples"), 0);
  EXPECT_GT(a.db().query_int("SELECT count(*) FROM blobs WHERE kind = 'binary'"), 0);
  EXPECT_TRUE(check_archive(a, true).ok());
}

// Every recorded evaluation is read back (record/recorded_evaluation.h): an index that
// rewrites rows as they go in (a trigger planted in it) fails the eval instead of
// keeping numbers that are not the run's.
TEST(RecordedEvaluation, ARunRewrittenAsItIsWrittenFailsTheEval) {
  TempDir dir;
  const std::string eval = "eval --definition rmsnorm_h128 --small --backend cpu --no-timing --solution '" +
                           std::string(KHARNESS_SOURCE_DIR) +
                           "/examples/solutions/rmsnorm_h128_cpu.json' --archive " + quoted(dir / "a");
  auto r = run_command(kharness(eval));
  ASSERT_EQ(r.status, 0) << r.out;
  {
    Archive a = Archive::open_existing(dir / "a");
    a.db().exec(
        "CREATE TRIGGER rewrite AFTER INSERT ON traces BEGIN "
        "UPDATE traces SET latency_ms = 0.001 WHERE id = NEW.id; END");
  }
  r = run_command(kharness(eval));
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("changed as it was written"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kh::archive
