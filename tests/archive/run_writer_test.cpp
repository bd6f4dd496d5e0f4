// Recording a run: every row and blob in one transaction, with lineage, samples and
// trace facts; a record that does not hold together writes nothing.
#include "archive/run_writer.h"

#include <gtest/gtest.h>

#include <cstring>

#include "archive/archive_check.h"
#include "archive/canonical_json.h"
#include "archive/controller_log.h"
#include "archive/profile_record.h"
#include "archive_fixtures.h"
#include "error/error.h"

namespace kh::archive {
namespace {

using test::synthetic_run;
using test::TempDir;

std::int64_t rows(Archive& a, const std::string& table) {
  return a.db().query_int("SELECT count(*) FROM " + table);
}

TEST(RunWriter, StoresEveryPartOfARun) {
  TempDir dir;
  Archive a = Archive::open_or_create(dir.path());
  const WrittenRun w = write_run(a, synthetic_run("a", 3));
  EXPECT_EQ(w.run_id, 1);
  EXPECT_EQ(rows(a, "runs"), 1);
  EXPECT_EQ(rows(a, "traces"), 3);
  EXPECT_EQ(rows(a, "samples"), 3 * 4);
  EXPECT_EQ(rows(a, "run_workloads"), 3);
  EXPECT_EQ(rows(a, "workloads"), 3);
  EXPECT_EQ(rows(a, "solutions"), 2) << "candidate and reference";
  EXPECT_EQ(rows(a, "builds"), 1);
  EXPECT_EQ(rows(a, "environments"), 1);
  EXPECT_EQ(a.db().query_text("SELECT status FROM runs"), "passed");
  EXPECT_EQ(a.db().query_text("SELECT role FROM solutions WHERE name = 'reference'"), "reference");

  Statement t = a.db().prepare(
      "SELECT workload_uuid, status, latency_ms, reference_latency_ms, speedup, sol_floor_ms, sol_fraction, "
      "solution, solution_id, run_id FROM traces ORDER BY id");
  ASSERT_TRUE(t.step());
  EXPECT_EQ(t.column_text(0), "w-0");
  EXPECT_EQ(t.column_text(1), "PASSED");
  EXPECT_DOUBLE_EQ(t.column_double(2), 0.001);
  EXPECT_DOUBLE_EQ(t.column_double(3), 0.002);
  EXPECT_DOUBLE_EQ(t.column_double(4), 2.0);
  EXPECT_DOUBLE_EQ(t.column_double(5), 0.00025);
  EXPECT_DOUBLE_EQ(t.column_double(6), 0.25);
  EXPECT_EQ(t.column_text(7), "candidate-a");
  EXPECT_EQ(t.column_int(8), w.solution_id);
  EXPECT_EQ(t.column_int(9), w.run_id);

  const std::string sha =
      a.db().query_text("SELECT json_blob FROM solutions WHERE id = " + std::to_string(w.solution_id));
  EXPECT_EQ(a.blobs().read(sha), test::synthetic_solution("candidate-a")) << "the exact text";
  EXPECT_EQ(w.solution_content_id, canonical_hash(test::synthetic_solution("candidate-a")));
  const std::string log = a.db().query_text("SELECT log_blob FROM builds");
  EXPECT_EQ(a.blobs().read(log), "compiled a");
  EXPECT_TRUE(check_archive(a, true).ok());
}

TEST(RunWriter, SamplesComeBackAsTheirValues) {
  TempDir dir;
  Archive a = Archive::open_or_create(dir.path());
  RunRecord r = synthetic_run("s", 1);
  r.traces[0].candidate_samples = {{1.5, 2.25, 3.125}};
  r.traces[0].reference_samples = {};
  write_run(a, r);
  Statement s = a.db().prepare("SELECT role, trial, count, data FROM samples");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_text(0), "candidate");
  EXPECT_EQ(s.column_int(1), 0);
  ASSERT_EQ(s.column_int(2), 3);
  const auto bytes = s.column_blob(3);
  ASSERT_EQ(bytes.size(), 3 * sizeof(double));
  double values[3];
  std::memcpy(values, bytes.data(), sizeof values);
  EXPECT_EQ(values[0], 1.5);
  EXPECT_EQ(values[2], 3.125);
  EXPECT_FALSE(s.step());
  EXPECT_EQ(a.db().query_int("SELECT sample_sets FROM traces"), 1);
}

TEST(RunWriter, SharedDocumentsAreStoredOnce) {
  TempDir dir;
  Archive a = Archive::open_or_create(dir.path());
  write_run(a, synthetic_run("a", 4));
  write_run(a, synthetic_run("b", 4));
  EXPECT_EQ(rows(a, "definitions"), 1);
  EXPECT_EQ(rows(a, "workloads"), 4);
  EXPECT_EQ(rows(a, "solutions"), 3) << "two candidates, one reference";
  EXPECT_EQ(rows(a, "runs"), 2);
  EXPECT_EQ(rows(a, "traces"), 8);
}

TEST(RunWriter, LineageLinksAChildToItsParent) {
  TempDir dir;
  Archive a = Archive::open_or_create(dir.path());
  const WrittenRun parent = write_run(a, synthetic_run("parent", 1));
  RunRecord child = synthetic_run("child", 1);
  child.candidate.lineage = {
      parent.solution_content_id, "tuner", "wider tiles", "tiling", "the prompt", "the answer"};
  const WrittenRun w = write_run(a, child);
  Statement s = a.db().prepare(
      "SELECT parent_id, agent, hypothesis, technique_family, prompt_blob, response_blob FROM solutions "
      "WHERE id = ?");
  s.bind(1, w.solution_id);
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_int(0), parent.solution_id);
  EXPECT_EQ(s.column_text(1), "tuner");
  EXPECT_EQ(s.column_text(2), "wider tiles");
  EXPECT_EQ(s.column_text(3), "tiling");
  EXPECT_EQ(a.blobs().read(s.column_text(4)), "the prompt");
  EXPECT_EQ(a.blobs().read(s.column_text(5)), "the answer");
}

TEST(RunWriter, AParentIsFoundByAUniquePrefix) {
  TempDir dir;
  Archive a = Archive::open_or_create(dir.path());
  const WrittenRun parent = write_run(a, synthetic_run("parent", 1));
  Lineage l;
  l.parent = parent.solution_content_id.substr(0, 10);
  resolve_parent(a, l);
  EXPECT_EQ(l.parent, parent.solution_content_id);
  l.parent = "zz";  // content ids are hex: no match
  EXPECT_THROW(resolve_parent(a, l), Error);
  Lineage none;
  EXPECT_NO_THROW(resolve_parent(a, none)) << "no parent is fine";
}

TEST(RunWriter, AnUnknownParentWritesNothing) {
  TempDir dir;
  Archive a = Archive::open_or_create(dir.path());
  RunRecord r = synthetic_run("orphan", 2);
  r.candidate.lineage.parent = std::string(64, 'f');
  try {
    write_run(a, r);
    FAIL() << "an unknown parent was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lineage.parent"), std::string::npos) << e.what();
  }
  for (const char* table : {"runs", "traces", "solutions", "definitions", "workloads", "builds", "blobs"})
    EXPECT_EQ(rows(a, table), 0) << table;
}

TEST(RunWriter, ATraceOfAnotherDefinitionIsRefusedNamingIt) {
  TempDir dir;
  Archive a = Archive::open_or_create(dir.path());
  RunRecord r = synthetic_run("mixed", 2);
  auto line = nlohmann::ordered_json::parse(r.traces[1].line);
  line["definition"] = "other";
  r.traces[1].line = line.dump();
  try {
    write_run(a, r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("traces"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'other'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(rows(a, "runs"), 0);
}

TEST(RunWriter, AFailedBuildMakesABuildFailedRun) {
  TempDir dir;
  Archive a = Archive::open_or_create(dir.path());
  RunRecord r = synthetic_run("broken", 1);
  r.build->status = "compile_error";
  auto line = nlohmann::ordered_json::parse(r.traces[0].line);
  line["evaluation"] = {{"status", "COMPILE_ERROR"}, {"log", "error: x"}};
  r.traces[0] = TraceRecord{line.dump(), {}, {}};
  write_run(a, r);
  EXPECT_EQ(a.db().query_text("SELECT status FROM runs"), "build_failed");
  EXPECT_EQ(a.db().query_int("SELECT latency_ms IS NULL FROM traces"), 1);
}

TEST(ControllerLog, DecisionsAndTheManifestRoundTrip) {
  TempDir dir;
  Archive a = Archive::open_or_create(dir.path());
  const WrittenRun best = write_run(a, synthetic_run("best", 1));
  const WrittenRun next = write_run(a, synthetic_run("next", 1));
  Decision d;
  d.loop_id = "loop-1";
  d.round = 2;
  d.kind = DecisionKind::promote;
  d.solution = next.solution_content_id;
  d.baseline = best.solution_content_id;
  d.evidence = {{"repeats", 2}, {"noise", 0.004}};
  d.started_at = "2026-01-01T00:00:00.000Z";
  record_decision(a, d);
  d.round = 1;
  d.kind = DecisionKind::reject_restore;
  record_decision(a, d);
  const std::vector<Decision> back = load_decisions(a, "loop-1");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].round, 1);
  EXPECT_EQ(back[0].kind, DecisionKind::reject_restore);
  EXPECT_EQ(back[1].kind, DecisionKind::promote);
  EXPECT_EQ(back[1].solution, next.solution_content_id);
  EXPECT_EQ(back[1].baseline, best.solution_content_id);
  EXPECT_EQ(back[1].evidence["repeats"], 2);
  EXPECT_FALSE(back[1].decided_at.empty());

  d.solution = std::string(64, '0');
  EXPECT_THROW(record_decision(a, d), Error);
  EXPECT_THROW(
      a.db().exec("INSERT INTO decisions(loop_id, round, kind, evidence_json, started_at, decided_at) "
                  "VALUES ('x', 1, 'maybe', '{}', '', '')"),
      Error)
      << "the schema allows only the three decision kinds";

  put_manifest(a, "loop-1", "round", 3);
  put_manifest(a, "loop-1", "best", best.solution_content_id);
  put_manifest(a, "loop-1", "round", 4);
  put_manifest(a, "loop-2", "round", 1);
  const auto manifest = load_manifest(a, "loop-1");
  ASSERT_EQ(manifest.size(), 2u);
  EXPECT_EQ(manifest.at("round"), 4);
  EXPECT_EQ(manifest.at("best"), best.solution_content_id);
  EXPECT_EQ(parse_decision_kind("archive_only"), DecisionKind::archive_only);
  EXPECT_FALSE(parse_decision_kind("promoted"));
}

TEST(ProfileRecord, StoresTheReportAsABlobOfItsSolution) {
  TempDir dir;
  Archive a = Archive::open_or_create(dir.path());
  const WrittenRun w = write_run(a, synthetic_run("p", 1));
  record_profile(
      a, ProfileRecord{w.solution_content_id, w.run_id, "w-0", "ncu", "ncu report bytes", {{"dram", 0.8}}});
  EXPECT_EQ(a.blobs().read(a.db().query_text("SELECT blob FROM profiles")), "ncu report bytes");
  EXPECT_EQ(a.db().query_text("SELECT summary_json FROM profiles"), R"({"dram":0.8})");
  EXPECT_THROW(record_profile(a, ProfileRecord{std::string(64, '1'), {}, {}, "ncu", "x", nullptr}), Error);
}

}  // namespace
}  // namespace kh::archive
