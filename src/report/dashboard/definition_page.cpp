#include <fmt/format.h>

#include <algorithm>

#include "report/dashboard/html.h"
#include "report/dashboard/pages.h"

namespace kh::report::dashboard {
namespace {

std::string percent(double v) { return fmt::format("{:.0f}%", v * 100); }

std::string name_cell(const CandidateRow& c) {
  const std::string label = c.name + (c.is_baseline ? " (baseline)" : "");
  return c.solution_id ? anchor(candidate_href(*c.solution_id), label) +
                             fmt::format(" <span class=\"meta\">#{}</span>", *c.solution_id)
                       : html_escape(label);
}

std::vector<std::string> leaderboard_row(const DefinitionReport& r, const CandidateRow& c, std::size_t rank) {
  const Score& s = c.score;
  const auto fast = [&](double p) {
    const auto it = std::find(r.sweep.begin(), r.sweep.end(), p);
    return it == r.sweep.end() ? std::string("–")
                               : percent(s.fast_p[static_cast<std::size_t>(it - r.sweep.begin())]);
  };
  return {std::to_string(rank),
          name_cell(c),
          fmt::format("{:.3f}", s.contest),
          fmt::format("{:.3f}", s.mean_speedup),
          percent(s.win_rate),
          fast(1.0),
          fast(2.0),
          percent_cell(s.sol_geomean),
          fmt::format("{}/{}", s.passed, s.total)};
}

void workload_table(HtmlPage& page, const DefinitionReport& r, const CandidateRow& c) {
  page.heading(2, "Per workload: " + c.name, "workloads");
  std::vector<std::vector<std::string>> rows;
  for (std::size_t w = 0; w < r.workloads.size(); ++w) {
    const WorkloadOutcome& o = c.outcomes[w];
    rows.push_back({html_escape(r.workloads[w].uuid.substr(0, 8)), html_escape(r.workloads[w].axes_json),
                    status_cell(o.status), number_cell(o.latency_ms), number_cell(o.baseline_ms),
                    number_cell(o.speedup(), "{:.3f}x"), percent_cell(o.sol_fraction)});
  }
  page.table({"workload", "axes", "status", "latency (ms)", "baseline (ms)", "speedup", "SOL"}, rows,
             "workloads");
}

void promotions_table(HtmlPage& page, const DefinitionReport& r) {
  if (r.promotions.empty()) return;
  page.heading(2, "Promotions", "promotions");
  page.paragraph(
      "Speedup over the loop's baseline: the promotion's robust confirmation in fresh workers on every "
      "workload, "
      "the figure kharness optimize printed; the official gate repeats are evidence beside it.",
      "meta");
  std::vector<std::vector<std::string>> rows;
  for (const PromotionRow& p : r.promotions) {
    std::vector<std::string> gates;
    if (p.speedup) {
      for (const auto& g : p.speedup->gate_repeats) gates.push_back(g ? format_speedup(*g) : "–");
    }
    rows.push_back(
        {html_escape(p.loop_id), std::to_string(p.round),
         p.solution_id ? anchor(candidate_href(*p.solution_id), p.solution) : html_escape(p.solution),
         "<span class=\"speedup\">" + promoted_speedup_text(p.speedup) + "</span>",
         p.speedup ? html_escape(p.speedup->protocol) : "–",
         html_escape(fmt::format("{}", fmt::join(gates, ", ")))});
  }
  page.table({"loop", "round", "solution", "speedup over the loop's baseline", "protocol", "gate repeats"},
             rows, "promotions");
}

}  // namespace

HttpResponse definition_page(const CachedDefinition& cached, std::size_t page_index) {
  const DefinitionReport& r = cached.report;
  const std::string base = definition_href(r.definition);
  HtmlPage page(r.definition, {{"definitions", "/"}, {r.definition, ""}});
  page.heading(1, r.definition);
  page.paragraph(
      fmt::format("{} workloads · {} candidates · baseline: {}", r.workloads.size(), r.candidates.size(),
                  r.baseline.empty() ? "recorded reference latency" : r.baseline),
      "meta");
  page.raw("<p>" + anchor(base + "/history", "optimisation history (tree)") + "</p>\n");
  if (!r.tampered.empty()) {
    page.heading(2, "Not ranked: the archive was edited", "tampered");
    page.paragraph(
        fmt::format("{} row(s) of this definition disagree with what kharness recorded "
                    "(`kharness archive verify --deep` lists every problem):",
                    r.tampered.size()));
    std::vector<std::vector<std::string>> problems;
    for (std::size_t i = 0; i < std::min<std::size_t>(r.tampered.size(), 50); ++i)
      problems.push_back({html_escape(r.tampered[i])});
    page.table({"problem"}, problems, "tampered");
    return HttpResponse{200, "text/html; charset=utf-8", page.finish()};
  }
  page.heading(2, "Leaderboard", "leaderboard");
  page.paragraph(
      "Contest score: the mean, over the workloads, of each latest trace's speedup over the baseline "
      "solution; "
      "0 when any workload failed. A promotion's speedup is another figure: see Promotions.",
      "meta");
  std::vector<std::vector<std::string>> rows;
  const std::size_t first = page_index * kLeaderboardPage;
  for (std::size_t i = first; i < std::min(first + kLeaderboardPage, r.candidates.size()); ++i) {
    rows.push_back(leaderboard_row(r, r.candidates[i], i + 1));
  }
  page.table(
      {"rank", "solution", "contest score", "mean speedup", "win rate", "fast_1", "fast_2", "SOL", "passed"},
      rows, "leaderboard");
  page.raw(pager(base, page_index, r.candidates.size(), kLeaderboardPage));
  promotions_table(page, r);
  page.heading(2, "Plots", "plots").raw("<div class=\"plots\">\n");
  for (const NamedPlot& p : cached.plots) {
    page.raw(fmt::format("<figure id=\"plot-{}\">{}</figure>\n", p.name, p.svg));
  }
  page.raw("</div>\n");
  const auto top = top_candidates(r, 1);
  if (!top.empty()) workload_table(page, r, r.candidates[top[0]]);
  return HttpResponse{200, "text/html; charset=utf-8", page.finish()};
}

}  // namespace kh::report::dashboard
