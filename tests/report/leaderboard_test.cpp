#include "report/leaderboard.h"

#include <gtest/gtest.h>

#include <vector>

#include "error/error.h"

namespace kh::report {
namespace {

TraceEntry trace(RowId id, const std::string& solution, const std::string& workload,
                 const std::string& status, std::optional<double> latency, std::optional<double> reference,
                 const std::string& time) {
  TraceEntry t;
  t.id = id;
  t.solution = solution;
  t.workload_uuid = workload;
  t.status = status;
  t.latency_ms = latency;
  t.reference_latency_ms = reference;
  t.timestamp = time;
  return t;
}

const std::vector<WorkloadEntry> kWorkloads = {{"w1", R"({"n":1})"}, {"w2", R"({"n":2})"}};

DefinitionReport build(const std::vector<TraceEntry>& traces, std::vector<std::string> baselines,
                       bool required = false) {
  return build_leaderboard({"d", kWorkloads, traces, std::move(baselines), required, default_p_sweep()});
}

const CandidateRow& row(const DefinitionReport& r, const std::string& name) {
  for (const CandidateRow& c : r.candidates) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no row " + name);
}

TEST(Leaderboard, BaselineSolutionLatencyIsTheDenominator) {
  const std::vector<TraceEntry> t = {
      trace(1, "d_baseline_cuda", "w1", "PASSED", 4.0, 99, "2026-01-01T00:00:01Z"),
      trace(2, "d_baseline_cuda", "w2", "PASSED", 8.0, 99, "2026-01-01T00:00:02Z"),
      trace(3, "fast", "w1", "PASSED", 1.0, 99, "2026-01-02T00:00:00Z"),
      trace(4, "fast", "w2", "PASSED", 2.0, 99, "2026-01-02T00:00:00Z"),
  };
  const DefinitionReport r = build(t, {"d_baseline_cuda"});
  EXPECT_EQ(r.baseline, "d_baseline_cuda");
  ASSERT_EQ(r.candidates.size(), 2u);
  EXPECT_EQ(r.candidates[0].name, "fast");
  EXPECT_DOUBLE_EQ(r.candidates[0].score.contest, 4.0);  // 4/1 and 8/2, not 99/1
  EXPECT_TRUE(r.candidates[1].is_baseline);
  EXPECT_DOUBLE_EQ(r.candidates[1].score.contest, 1.0);
}

TEST(Leaderboard, ReferenceLatencyWhenNoBaselineRan) {
  const std::vector<TraceEntry> t = {
      trace(1, "a", "w1", "PASSED", 1.0, 3.0, "t1"),
      trace(2, "a", "w2", "PASSED", 1.0, 5.0, "t1"),
  };
  const DefinitionReport r = build(t, {"d_baseline_cpp"});
  EXPECT_EQ(r.baseline, "");
  EXPECT_DOUBLE_EQ(row(r, "a").score.contest, 4.0);
}

TEST(Leaderboard, LatestTracePerWorkloadCounts) {
  // w1 first failed, then a rerun passed: the rerun counts. w2 passed, then regressed.
  const std::vector<TraceEntry> t = {
      trace(1, "a", "w1", "RUNTIME_ERROR", std::nullopt, std::nullopt, "2026-01-01T00:00:00Z"),
      trace(2, "a", "w1", "PASSED", 1.0, 2.0, "2026-01-03T00:00:00Z"),
      trace(3, "a", "w2", "PASSED", 1.0, 2.0, "2026-01-01T00:00:00Z"),
      trace(4, "a", "w2", "PASSED", 4.0, 2.0, "2026-01-03T00:00:00Z"),
  };
  const DefinitionReport r = build(t, {});
  const CandidateRow& a = row(r, "a");
  EXPECT_DOUBLE_EQ(a.score.contest, (2.0 + 0.5) / 2);
  EXPECT_EQ(a.trace_ids[0], 2);
  EXPECT_EQ(a.trace_ids[1], 4);
}

TEST(Leaderboard, MissingWorkloadIsAFailure) {
  const std::vector<TraceEntry> t = {
      trace(1, "a", "w1", "PASSED", 1.0, 2.0, "t"),
      trace(2, "b", "w1", "PASSED", 1.0, 2.0, "t"),
      trace(3, "b", "w2", "PASSED", 1.0, 2.0, "t"),
  };
  const DefinitionReport r = build(t, {});
  EXPECT_EQ(row(r, "a").outcomes[1].status, kMissing);
  EXPECT_EQ(row(r, "a").score.contest, 0.0);
  EXPECT_EQ(r.candidates[0].name, "b");
}

TEST(Leaderboard, SolutionsWithTheSameNameButDifferentIdsAreSeparate) {
  std::vector<TraceEntry> t = {trace(1, "a", "w1", "PASSED", 1.0, 2.0, "t"),
                               trace(2, "a", "w1", "PASSED", 2.0, 2.0, "t")};
  t[0].solution_id = 10;
  t[1].solution_id = 11;
  EXPECT_EQ(build(t, {}).candidates.size(), 2u);
}

TEST(Leaderboard, ANamedBaselineWithoutTracesIsAnError) {
  const std::vector<TraceEntry> t = {trace(1, "a", "w1", "PASSED", 1.0, 2.0, "t")};
  EXPECT_THROW((void)build(t, {"nope"}, true), Error);
  EXPECT_NO_THROW((void)build(t, {"nope"}, false));
}

TEST(Leaderboard, BaselineWithMostPassedWorkloadsIsChosen) {
  const std::vector<TraceEntry> t = {
      trace(1, "d_baseline_cpp", "w1", "PASSED", 2.0, 1, "t"),
      trace(2, "d_baseline_cuda", "w1", "PASSED", 3.0, 1, "t"),
      trace(3, "d_baseline_cuda", "w2", "PASSED", 3.0, 1, "t"),
  };
  EXPECT_EQ(build(t, {"d_baseline_cpp", "d_baseline_cuda"}).baseline, "d_baseline_cuda");
}

TEST(Leaderboard, WorkloadsOnlyTracesNameAreColumnsToo) {
  const std::vector<TraceEntry> t = {trace(1, "a", "w1", "PASSED", 1.0, 2.0, "t"),
                                     trace(2, "a", "w9", "PASSED", 1.0, 2.0, "t")};
  const DefinitionReport r = build(t, {});
  ASSERT_EQ(r.workloads.size(), 2u) << "w2 has no trace: not a column; w9 is not archived: still a column";
  EXPECT_EQ(r.workloads[0].uuid, "w1");
  EXPECT_EQ(r.workloads[1].uuid, "w9");
  EXPECT_EQ(r.workloads[1].axes_json, "{}");
}

}  // namespace
}  // namespace kh::report
