// One reported truth: for one promotion, the loop's summary (JSON and text), `kharness
// report` (JSON and Markdown) and the dashboard (definition page, history, candidate page)
// give the same speedup: the promotion's robust confirmation over the loop's baseline,
// stored with the decision. The leaderboard's contest score is another figure, labelled
// as such.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "archive/archive.h"
#include "archive/controller_log.h"
#include "cli/kharness_command.h"
#include "report/dashboard/dashboard.h"
#include "report/dashboard/html.h"
#include "report/promoted_speedup.h"
#include "support/temp_dir.h"

namespace kh {
namespace {

using cli_test::run;
using cli_test::Stderr;

const std::filesystem::path kSource = KHARNESS_SOURCE_DIR;

std::string loop_args(const std::filesystem::path& archive) {
  // Round 1 promotes the fast knob setting; round 2 has no setting left and archives only.
  return "optimize --definition rmsnorm_h128 --small --backend cpu --no-reference-timing --rounds 2 --seed 7 "
         "--from '" +
         (kSource / "tests/control/data/rmsnorm_slow_knobs.json").string() + "' --archive '" +
         archive.string() + "'";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ReportedSpeedup, SummaryReportAndDashboardShowTheSameFigure) {
  test::TempDir tmp("kh_reported_speedup_");
  const auto dir = tmp.path() / "a";
  const auto loop = run(loop_args(dir) + " --json", Stderr::dropped);
  ASSERT_EQ(loop.status, 0) << loop.out;
  const nlohmann::json s = nlohmann::json::parse(loop.out);
  ASSERT_EQ(s.at("decisions").size(), 2u) << s.dump(2);
  ASSERT_EQ(s.at("decisions").at(0).at("kind"), "promote") << s.dump(2);
  ASSERT_EQ(s.at("decisions").at(1).at("kind"), "archive_only") << s.dump(2);
  const double figure = s.at("speedup_over_start").get<double>();
  const std::string text = report::format_speedup(figure);

  // Stored with the decision: the robust confirmation over the loop's baseline (the start).
  archive::Archive a = archive::Archive::open_existing(dir);
  const auto d = archive::load_decisions(a, s.at("loop_id").get<std::string>()).at(0);
  const auto stored = report::PromotedSpeedup::from_evidence(d.evidence);
  ASSERT_TRUE(stored.has_value()) << d.evidence.dump(2);
  EXPECT_DOUBLE_EQ(stored->over_baseline, figure);
  EXPECT_EQ(stored->protocol, "robust");
  EXPECT_EQ(stored->baseline, s.at("start").at("content_id"));
  EXPECT_EQ(stored->workloads.size(), 3u);
  ASSERT_TRUE(stored->over_replaced.has_value());
  EXPECT_DOUBLE_EQ(*stored->over_replaced, figure) << "the first promotion replaced the start itself";
  EXPECT_EQ(stored->gate_repeats.size(), 2u);
  EXPECT_EQ(s.at("decisions").at(0).at("speedup_over_baseline").get<double>(), figure);

  // The text summary of the same loop (it is finished: nothing is measured again).
  const auto summary = run(loop_args(dir), Stderr::dropped);
  ASSERT_EQ(summary.status, 0) << summary.out;
  EXPECT_TRUE(has(summary.out, "speedup over start: " + text + " (robust protocol")) << summary.out;
  EXPECT_TRUE(has(summary.out, "over the loop's baseline")) << summary.out;

  const auto json = run("report --archive '" + dir.string() + "' --json", Stderr::dropped);
  ASSERT_EQ(json.status, 0) << json.out;
  const nlohmann::json r = nlohmann::json::parse(json.out);
  const auto& promotions = r.at("definitions").at(0).at("promotions");
  ASSERT_EQ(promotions.size(), 1u) << r.dump(2);
  EXPECT_DOUBLE_EQ(promotions[0].at("speedup_over_baseline").get<double>(), figure);

  // The loop's own record beside it: each round, its decision, candidates and reason.
  const auto& rounds = r.at("definitions").at(0).at("rounds");
  ASSERT_EQ(rounds.size(), 2u) << r.dump(2);
  EXPECT_EQ(rounds[0].at("decision"), "promote");
  EXPECT_EQ(rounds[0].at("candidate"), s.at("best").at("name"));
  EXPECT_FALSE(rounds[0].at("family").get<std::string>().empty());
  EXPECT_GT(rounds[0].at("speedup").get<double>(), 1.0);
  EXPECT_GE(rounds[0].at("candidates").at("passed").get<int>(), 1);
  EXPECT_EQ(rounds[0].at("reason"), s.at("decisions").at(0).at("reason")) << s.at("decisions").dump(2);
  EXPECT_GT(rounds[0].at("seconds").get<double>(), 0.0);
  EXPECT_EQ(rounds[1].at("decision"), "archive_only");

  const auto md = run("report --archive '" + dir.string() + "'", Stderr::dropped);
  ASSERT_EQ(md.status, 0);
  EXPECT_TRUE(has(md.out, "#### Promotions")) << md.out;
  EXPECT_TRUE(has(md.out, "#### Rounds")) << md.out;
  EXPECT_TRUE(has(md.out, "2 round(s) of 1 loop(s): 1 promoted, 0 rejected and restored, 1 archived only"))
      << md.out;
  EXPECT_TRUE(has(md.out, "| " + text + " | robust |")) << md.out;
  EXPECT_TRUE(has(md.out, "| contest score |")) << "the leaderboard's figure is named for what it is";

  report::dashboard::Dashboard dash(dir);
  const std::string history = dash.get("/definition/rmsnorm_h128/history", {}).body;
  EXPECT_TRUE(has(history, "round 1: promote · " + text + " over the loop&#39;s baseline")) << history;
  EXPECT_TRUE(has(history, "round 2: archive_only (kept)")) << "every kind of decision is on the history";
  EXPECT_TRUE(has(history, "2 decisions")) << history;
  // The dashboard's decisions carry the same round record as the report's Rounds table.
  EXPECT_TRUE(has(history, "<th>speedup over the best it kept</th>")) << history;
  EXPECT_TRUE(has(history, "<td>" + rounds[0].at("candidate").get<std::string>() + "</td>")) << history;
  EXPECT_TRUE(has(history, "<td>" + report::format_speedup(rounds[0].at("speedup").get<double>()) + "</td>"))
      << history;
  EXPECT_TRUE(has(
      history, "<td>" + report::dashboard::html_escape(rounds[0].at("reason").get<std::string>()) + "</td>"))
      << history;
  const std::string definition = dash.get("/definition/rmsnorm_h128", {}).body;
  EXPECT_TRUE(has(definition, "<span class=\"speedup\">" + text + "</span>")) << definition;
  EXPECT_TRUE(has(definition, "contest score"));
}

}  // namespace
}  // namespace kh
