// Tamper evidence: each edit made behind kharness's back (an index column, a trace line,
// its hash, a sample row, a decision's evidence, a trigger, an extra table, a stray
// file) is first made on a whole archive, then shown to be named by `verify --deep`.
#include <gtest/gtest.h>

#include "archive/archive.h"
#include "archive/archive_check.h"
#include "archive/controller_log.h"
#include "archive/run_writer.h"
#include "archive_fixtures.h"
#include "base/sha256.h"

namespace kh::archive {
namespace {

using test::TempDir;

bool mentions(const CheckReport& r, const std::string& text) {
  for (const std::string& p : r.problems)
    if (p.find(text) != std::string::npos) return true;
  return false;
}

std::string all(const CheckReport& r) {
  std::string out;
  for (const std::string& p : r.problems) out += p + "\n";
  return out;
}

struct Written {
  TempDir dir;
  Archive archive = Archive::open_or_create(dir.path());
  WrittenRun run = write_run(archive, test::synthetic_run("t", 3));
};

TEST(Tamper, AWholeArchiveVerifiesDeep) {
  Written w;
  const CheckReport r = check_archive(w.archive, true);
  EXPECT_TRUE(r.ok()) << all(r);
  EXPECT_EQ(r.traces_checked, 3);
  EXPECT_EQ(r.unsealed_runs, 0);
}

TEST(Tamper, AnEditedLatencyColumnIsNamed) {
  Written w;
  w.archive.db().exec("UPDATE traces SET latency_ms = latency_ms * 4 WHERE id = 2");
  const CheckReport r = check_archive(w.archive, true);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r, "trace 2: latency_ms is 0.008 in the index but 0.002 in its trace line")) << all(r);
}

TEST(Tamper, AnEditedLineIsNamedByItsHash) {
  Written w;
  w.archive.db().exec(
      "UPDATE traces SET line = replace(line, '\"latency_ms\":0.001', '\"latency_ms\":0.0001') WHERE id = 1");
  const CheckReport r = check_archive(w.archive, true);
  EXPECT_TRUE(mentions(r, "trace 1: its line does not hash to its content hash")) << all(r);
  EXPECT_TRUE(mentions(r, "latency_ms is 0.001 in the index but 0.0001")) << all(r);
}

TEST(Tamper, ALineRewrittenWithItsHashAndColumnsBreaksTheRunSeal) {
  Written w;
  Database& db = w.archive.db();
  const std::string line = db.query_text("SELECT line FROM traces WHERE id = 3");
  std::string forged = line;
  forged.replace(forged.find("\"latency_ms\":0.003"), 18, "\"latency_ms\":0.0003");
  Statement s = db.prepare("UPDATE traces SET line = ?, content_hash = ?, latency_ms = 0.0003 WHERE id = 3");
  s.bind(1, forged).bind(2, sha256_hex(forged));
  s.run();
  const CheckReport r = check_archive(w.archive, true);
  EXPECT_TRUE(mentions(r, "its rows no longer match its seal")) << all(r);
  EXPECT_FALSE(mentions(r, "trace 3:")) << "the row itself agrees with its line: " << all(r);
}

TEST(Tamper, AnEditedSampleRowIsNamed) {
  Written w;
  w.archive.db().exec(
      "UPDATE samples SET data = zeroblob(160) WHERE trace_id = 1 AND role = 'candidate' AND trial = 0");
  const CheckReport r = check_archive(w.archive, true);
  EXPECT_TRUE(mentions(r, "trace 1: candidate samples of trial 0 do not hash to their sha256")) << all(r);
}

TEST(Tamper, AForeignTriggerAndTableAreNamedEvenWithoutDeep) {
  Written w;
  w.archive.db().exec(
      "CREATE TABLE forged(x); CREATE TRIGGER boost AFTER INSERT ON traces BEGIN UPDATE traces SET "
      "latency_ms = 1 WHERE id = new.id; END;");
  const CheckReport r = check_archive(w.archive, false);
  EXPECT_TRUE(mentions(r, "schema: table forged is not made by kharness")) << all(r);
  EXPECT_TRUE(mentions(r, "schema: trigger boost is not made by kharness")) << all(r);
}

TEST(Tamper, AStrayFileIsNamedAndAnUnnamedBlobIsCountedOnly) {
  Written w;
  w.dir.write("notes.sh", "rm -rf /\n");
  w.dir.write("blobs/ab/not-a-blob", "x");
  w.dir.write("blobs/ab/ab" + std::string(62, '0'), "written before a kill");
  const CheckReport r = check_archive(w.archive, true);
  EXPECT_TRUE(mentions(r, "notes.sh is not one kharness keeps")) << all(r);
  EXPECT_TRUE(mentions(r, "not-a-blob is not a blob")) << all(r);
  EXPECT_EQ(r.unnamed_blobs, 1);
  EXPECT_EQ(r.problems.size(), 2u) << all(r);
}

TEST(Tamper, ADecisionWhoseFiguresDisagreeWithItsRunIsNamed) {
  Written w;
  const nlohmann::ordered_json sweep = {
      {"run_id", w.run.run_id},
      {"workloads", {{{"workload", "w-0"}, {"status", "PASSED"}, {"latency_ms", 0.001}}}}};
  Decision d;
  d.loop_id = "loop";
  d.round = 1;
  d.evidence = {{"decision", "archive_only"}, {"paired_baseline", {{"repeats", {sweep}}}}};
  d.started_at = "t";
  record_decision(w.archive, d);
  EXPECT_TRUE(check_archive(w.archive, true).ok()) << all(check_archive(w.archive, true));
  w.archive.db().exec("UPDATE decisions SET evidence_json = replace(evidence_json, '0.001', '0.004')");
  const CheckReport r = check_archive(w.archive, true);
  EXPECT_TRUE(mentions(r, "decision 1: says workload w-0 of run 1 was PASSED in 0.004 ms")) << all(r);
}

TEST(Tamper, RunsWrittenBeforeSealsAreCheckedAsFarAsTheyCanBe) {
  Written w;
  w.archive.db().exec("UPDATE runs SET seal = NULL; UPDATE samples SET sha256 = NULL");
  CheckReport r = check_archive(w.archive, true);
  EXPECT_TRUE(r.ok()) << all(r);
  EXPECT_EQ(r.unsealed_runs, 1);
  w.archive.db().exec("UPDATE traces SET status = 'PASSED', latency_ms = 0.0001 WHERE id = 1");
  r = check_archive(w.archive, true);
  EXPECT_TRUE(mentions(r, "trace 1: latency_ms")) << all(r);
}

}  // namespace
}  // namespace kh::archive
