#include <gtest/gtest.h>

#include "report/leaderboard.h"
#include "report/plot_inputs.h"
#include "report/plots.h"
#include "report/svg/plot_canvas.h"
#include "report/svg/scale.h"
#include "xml_check.h"

namespace kh::report {
namespace {

using test::check_xml;

TraceEntry trace(RowId id, const std::string& solution, const std::string& w, bool ok, double latency,
                 const std::string& time) {
  TraceEntry t;
  t.id = id;
  t.solution_id = id < 100 ? std::optional<RowId>(id / 10) : std::nullopt;
  t.solution = solution;
  t.workload_uuid = w;
  t.status = ok ? "PASSED" : "INCORRECT_NUMERICAL";
  if (ok) t.latency_ms = latency;
  t.reference_latency_ms = 1.0;
  t.sol_fraction = 0.5;
  t.timestamp = time;
  return t;
}

// Three workloads; baseline b (ids 1x), candidates fast (2x, all pass) and broken (3x,
// one failure).
DefinitionReport sample_report() {
  static const std::vector<WorkloadEntry> workloads = {
      {"wa", R"({"n":16})"}, {"wb", R"({"n":256})"}, {"wc", R"({"n":4096})"}};
  static const std::vector<TraceEntry> traces = {trace(10, "d_baseline_cuda", "wa", true, 1.0, "t1"),
                                                 trace(11, "d_baseline_cuda", "wb", true, 2.0, "t1"),
                                                 trace(12, "d_baseline_cuda", "wc", true, 8.0, "t1"),
                                                 trace(20, "fast", "wa", true, 0.5, "t2"),
                                                 trace(21, "fast", "wb", true, 0.5, "t2"),
                                                 trace(22, "fast", "wc", true, 2.0, "t2"),
                                                 trace(30, "broken", "wa", true, 0.25, "t3"),
                                                 trace(31, "broken", "wb", false, 0, "t3"),
                                                 trace(32, "broken", "wc", true, 16.0, "t3")};
  return build_leaderboard({"d", workloads, traces, {"d_baseline_cuda"}, false, default_p_sweep()});
}

PlotInputs sample_inputs(const DefinitionReport& r) {
  PlotInputs in;
  fill_var_axis(in, std::string(R"({"axes":{"n":{"type":"var"},"h":{"type":"const","value":4}}})"), r);
  in.roofline.bandwidth = 1e12;
  in.roofline.compute_peak = 1e14;
  in.roofline.compute_unit = "fp32";
  in.roofline.points = {{0, "wa", 0.25, 1e11}, {0, "wb", 0.25, 2e11}, {1, "wa", 0.25, 5e10}};
  return in;
}

TEST(Svg, VarAxisComesFromTheDefinition) {
  const DefinitionReport r = sample_report();
  const PlotInputs in = sample_inputs(r);
  EXPECT_EQ(in.var_axis, "n");
  ASSERT_EQ(in.var_values.size(), 3u);
  EXPECT_EQ(in.var_values[2], 4096.0);
}

TEST(Svg, SpeedupBarsOnePerPassedWorkloadOfTheBestCandidate) {
  const DefinitionReport r = sample_report();
  ASSERT_EQ(r.candidates[0].name, "fast");
  const auto facts = check_xml(speedup_plot(r, sample_inputs(r)));
  EXPECT_EQ(facts.root, "svg");
  EXPECT_EQ(facts.with_class("bar"), 3);
  EXPECT_EQ(facts.with_class("axis"), 2);
  EXPECT_GT(facts.with_class("tick"), 3);
}

TEST(Svg, FastPHasALineAndAPointPerSweepEntryPerCandidate) {
  const DefinitionReport r = sample_report();
  const auto facts = check_xml(fast_p_plot(r));
  EXPECT_EQ(facts.with_class("line"), 2);  // fast and broken; the baseline is not a series
  EXPECT_EQ(facts.with_class("point"), 2 * 10);
  EXPECT_EQ(facts.with_class("legend-entry"), 2);
}

TEST(Svg, LatencyPlotDrawsPassedWorkloadsOfTopCandidatesAndBaseline) {
  const DefinitionReport r = sample_report();
  const auto facts = check_xml(latency_plot(r, sample_inputs(r)));
  EXPECT_EQ(facts.with_class("line"), 3);
  EXPECT_EQ(facts.with_class("point"), 3 + 2 + 3);  // fast, broken (one failed), baseline
}

TEST(Svg, RoundsPlotOnlyCandidatesThatPassedEverything) {
  const DefinitionReport r = sample_report();
  const auto facts = check_xml(rounds_plot(r, sample_inputs(r)));
  EXPECT_EQ(facts.with_class("point"), 1 + 1);  // "fast" as a candidate, and the best-so-far line's dot
  EXPECT_EQ(facts.with_class("reference"), 1);  // the baseline's geomean
}

TEST(Svg, RooflineHasBothRoofsAndOnePointPerMeasurement) {
  const DefinitionReport r = sample_report();
  const auto facts = check_xml(roofline_plot(r, sample_inputs(r).roofline));
  EXPECT_EQ(facts.with_class("roof"), 2);
  EXPECT_EQ(facts.with_class("point"), 3);
}

TEST(Svg, EmptyReportStillGivesValidPlotsWithANote) {
  const DefinitionReport r = build_leaderboard({"d", {}, {}, {}, false, default_p_sweep()});
  for (const NamedPlot& p : all_plots(r, PlotInputs{})) {
    const auto facts = check_xml(p.svg);
    EXPECT_EQ(facts.with_class("mark"), 0) << p.name;
    EXPECT_EQ(facts.with_class("note"), 1) << p.name;
  }
}

TEST(Svg, TextIsEscaped) {
  svg::PlotCanvas plot("a < b & \"c\"", {"x", svg::ScaleKind::linear, {0, 1}},
                       {"y", svg::ScaleKind::linear, {0, 1}});
  plot.line_series({{0, 0}, {1, 1}}, "<script>&", 0);
  const std::string doc = plot.finish();
  EXPECT_NO_THROW((void)check_xml(doc));
  EXPECT_EQ(doc.find("<script>"), std::string::npos);
}

TEST(Scale, LogTicksArePowersOfTenAndLinearTicksAreRound) {
  const auto log = svg::Scale::fit(svg::ScaleKind::log, std::vector<double>{0.003, 40.0}, 0, 100);
  EXPECT_DOUBLE_EQ(log.lo(), 0.001);
  EXPECT_DOUBLE_EQ(log.hi(), 100.0);
  EXPECT_EQ(log.ticks().size(), 6u);
  EXPECT_DOUBLE_EQ(log(0.001), 0.0);
  EXPECT_DOUBLE_EQ(log(100.0), 100.0);
  EXPECT_NEAR(log(1.0), 60.0, 1e-9);
  const auto lin = svg::Scale::fit(svg::ScaleKind::linear, std::vector<double>{0.3, 9.2}, 100, 0);
  EXPECT_DOUBLE_EQ(lin.lo(), 0.0);
  EXPECT_DOUBLE_EQ(lin.hi(), 10.0);
  EXPECT_EQ(lin.ticks(), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_DOUBLE_EQ(lin(0.0), 100.0) << "the pixel range may run backwards (SVG's y)";
}

}  // namespace
}  // namespace kh::report
