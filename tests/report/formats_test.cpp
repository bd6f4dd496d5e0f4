#include <gtest/gtest.h>

#include <sstream>

#include "report/leaderboard.h"
#include "report/report_formats.h"

namespace kh::report {
namespace {

TraceEntry trace(RowId id, const std::string& solution, const std::string& w, double latency,
                 double reference) {
  TraceEntry t;
  t.id = id;
  t.solution = solution;
  t.workload_uuid = w;
  t.status = "PASSED";
  t.latency_ms = latency;
  t.reference_latency_ms = reference;
  t.timestamp = "t";
  return t;
}

DefinitionReport sample() {
  static const std::vector<WorkloadEntry> workloads = {{"w1", R"({"n":1,"h":2})"},
                                                       {"w2", R"({"n":2,"h":2})"}};
  static const std::vector<TraceEntry> traces = {trace(1, "a,b", "w1", 1, 2), trace(2, "a,b", "w2", 1, 4),
                                                 trace(3, "c", "w1", 2, 2)};
  return build_leaderboard({"def", workloads, traces, {}, false, default_p_sweep()});
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(Formats, CsvFieldQuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

TEST(Formats, LeaderboardCsvHasOneRowPerCandidateAndAFastColumnPerP) {
  const DefinitionReport r = sample();
  const auto l = lines(leaderboard_csv(std::span(&r, 1)));
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(
      l[0],
      "definition,rank,solution,solution_id,is_baseline,score,mean_speedup,win_rate,passed,total,sol_geomean,"
      "fast_0,fast_0.5,fast_0.8,fast_1,fast_1.2,fast_1.5,fast_2,fast_3,fast_5,fast_10");
  EXPECT_EQ(l[1], "def,1,\"a,b\",,0,3,3,1,2,2,,1,1,1,1,1,1,0.5,0.5,0,0");
  EXPECT_TRUE(l[2].starts_with("def,2,c,,0,0,1,0,1,2,")) << l[2] << " (c misses w2: score 0)";
}

TEST(Formats, WorkloadsCsvHasOneRowPerCandidateAndWorkload) {
  const DefinitionReport r = sample();
  const auto l = lines(workloads_csv(std::span(&r, 1)));
  ASSERT_EQ(l.size(), 1u + 2 * 2);
  EXPECT_EQ(l[1], "def,\"a,b\",,w1,\"{\"\"n\"\":1,\"\"h\"\":2}\",PASSED,1,2,2,,1");
  EXPECT_EQ(l[4], "def,c,,w2,\"{\"\"n\"\":2,\"\"h\"\":2}\",MISSING,,,,,");
}

TEST(Formats, JsonCarriesScoresFastPAndWorkloads) {
  const auto j = to_json(sample());
  EXPECT_EQ(j["definition"], "def");
  EXPECT_TRUE(j["baseline"].is_null());
  ASSERT_EQ(j["leaderboard"].size(), 2u);
  const auto& first = j["leaderboard"][0];
  EXPECT_EQ(first["rank"], 1);
  EXPECT_EQ(first["solution"], "a,b");
  EXPECT_DOUBLE_EQ(first["score"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(first["fast_p"]["3"].get<double>(), 0.5);
  ASSERT_EQ(first["workloads"].size(), 2u);
  EXPECT_DOUBLE_EQ(first["workloads"][1]["speedup"].get<double>(), 4.0);
  EXPECT_EQ(j["workloads"][0]["axes"]["n"], 1);
  EXPECT_EQ(j["leaderboard"][1]["workloads"][1]["status"], "MISSING");
}

TEST(Formats, MarkdownHasTheLeaderboardFastPAndWorkloadTables) {
  const std::string md = to_markdown(sample(), {20, 1, true});
  EXPECT_NE(md.find("## def"), std::string::npos);
  EXPECT_NE(md.find("| 1 | a,b | 3.000 | 3.000 | 100% | 100% | 50% | – | 2/2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 2 | c | 0.000 |"), std::string::npos);
  EXPECT_NE(md.find("| p=0 | p=0.5 |"), std::string::npos);
  EXPECT_NE(md.find("### a,b"), std::string::npos);
  EXPECT_EQ(md.find("### c"), std::string::npos) << "one workload table asked for";
  EXPECT_NE(md.find("![roofline](roofline.svg)"), std::string::npos);
  EXPECT_NE(md.find("| w2 | {\"n\":2,\"h\":2} | PASSED | 1 | 4 | 4.000x | – |"), std::string::npos) << md;
}

TEST(Formats, MarkdownEscapesPipes) {
  static const std::vector<TraceEntry> traces = {trace(1, "x|y", "w1", 1, 1)};
  const auto r = build_leaderboard({"d", {}, traces, {}, false, default_p_sweep()});
  EXPECT_NE(to_markdown(r, {}).find("x\\|y"), std::string::npos);
}

}  // namespace
}  // namespace kh::report
