#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/plots.h"
#include "report/report_formats.h"

namespace kh::report {
namespace {

// A markdown table cell: pipes would split it, line breaks would end the row.
std::string md(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string num(const std::optional<double>& v, const char* spec = "{:.4g}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("–");
}

std::string percent(double v) { return fmt::format("{:.0f}%", v * 100); }

std::string share(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}%", *v * 100) : std::string("–");
}

void leaderboard(std::string& out, const DefinitionReport& r, std::size_t top) {
  out +=
      "| rank | solution | contest score | mean speedup | win rate | fast_1 | fast_2 | SOL (geomean) | "
      "passed |\n";
  out += "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n";
  const auto at = [&](double p) {
    const auto it = std::find(r.sweep.begin(), r.sweep.end(), p);
    return it == r.sweep.end() ? std::size_t(-1) : static_cast<std::size_t>(it - r.sweep.begin());
  };
  const std::size_t p1 = at(1.0), p2 = at(2.0);
  for (std::size_t i = 0; i < std::min(top, r.candidates.size()); ++i) {
    const CandidateRow& c = r.candidates[i];
    const Score& s = c.score;
    out += fmt::format("| {} | {}{} | {:.3f} | {:.3f} | {} | {} | {} | {} | {}/{} |\n", i + 1,
                       md(candidate_label(c)), c.is_baseline ? " (baseline)" : "", s.contest, s.mean_speedup,
                       percent(s.win_rate), p1 < s.fast_p.size() ? percent(s.fast_p[p1]) : "–",
                       p2 < s.fast_p.size() ? percent(s.fast_p[p2]) : "–", share(s.sol_geomean), s.passed,
                       s.total);
  }
  if (r.candidates.size() > top)
    out += fmt::format("\n{} more candidates (see --format csv or json).\n", r.candidates.size() - top);
}

void fast_p_table(std::string& out, const DefinitionReport& r, std::size_t top) {
  out += "| solution |";
  for (double p : r.sweep) out += fmt::format(" p={:g} |", p);
  out += "\n|---|";
  for (std::size_t i = 0; i < r.sweep.size(); ++i) out += "---:|";
  out += '\n';
  for (std::size_t i = 0; i < std::min(top, r.candidates.size()); ++i) {
    out += "| " + md(candidate_label(r.candidates[i])) + " |";
    for (double f : r.candidates[i].score.fast_p) out += " " + percent(f) + " |";
    out += '\n';
  }
}

void workload_table(std::string& out, const DefinitionReport& r, const CandidateRow& c) {
  out += fmt::format("\n### {}\n\n", md(candidate_label(c)));
  out += "| workload | axes | status | latency (ms) | baseline (ms) | speedup | SOL |\n";
  out += "|---|---|---|---:|---:|---:|---:|\n";
  for (std::size_t w = 0; w < r.workloads.size(); ++w) {
    const WorkloadOutcome& o = c.outcomes[w];
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", r.workloads[w].uuid.substr(0, 8),
                       md(r.workloads[w].axes_json), o.status, num(o.latency_ms), num(o.baseline_ms),
                       num(o.speedup(), "{:.3f}x"), share(o.sol_fraction));
  }
}

void promotions_table(std::string& out, const DefinitionReport& r) {
  out +=
      "\n#### Promotions\n\n"
      "Speedup over the loop's baseline: the promotion's robust confirmation, fresh workers, every workload "
      "(the figure `kharness optimize` printed); the official gate repeats against the best it replaced are "
      "evidence beside it.\n\n";
  out += "| loop | round | solution | speedup over the loop's baseline | protocol | noise | gate repeats |\n";
  out += "|---|---:|---|---:|---|---:|---|\n";
  for (const PromotionRow& p : r.promotions) {
    if (!p.speedup) {
      out += fmt::format("| {} | {} | {} | – | – | – | (recorded before kharness kept the speedup) |\n",
                         md(p.loop_id), p.round, md(p.solution));
      continue;
    }
    std::vector<std::string> gates;
    for (const auto& g : p.speedup->gate_repeats) gates.push_back(g ? format_speedup(*g) : "–");
    out += fmt::format("| {} | {} | {} | {} | {} | {:.1f}% | {} |\n", md(p.loop_id), p.round, md(p.solution),
                       format_speedup(p.speedup->over_baseline, p.speedup->objective), p.speedup->protocol,
                       100 * p.speedup->noise, fmt::join(gates, ", "));
  }
}

// The loops' own record: each round's decision, candidates, the round's candidate and why.
void rounds_table(std::string& out, const DefinitionReport& r) {
  std::set<std::string> loops;
  std::map<std::string, int> decisions;
  CandidateStatuses all;
  double seconds = 0;
  for (const RoundRow& x : r.rounds) {
    loops.insert(x.loop_id);
    ++decisions[x.decision];
    all += x.candidates;
    seconds += x.seconds;
  }
  out += fmt::format(
      "\n#### Rounds\n\n{} round(s) of {} loop(s): {} promoted, {} rejected and restored, {} archived only; "
      "candidates {}; wall time {:.0f} s. Speedup: the retained best's latency over the round's candidate's, "
      "on the round's workloads, weighed as the loop's objective says.\n\n",
      r.rounds.size(), loops.size(), decisions["promote"], decisions["reject_restore"],
      decisions["archive_only"], candidates_text(all), seconds);
  out +=
      "| loop | round | decision | candidates | the round's candidate | family | speedup | reason | seconds "
      "|\n";
  out += "|---|---:|---|---|---|---|---:|---|---:|\n";
  for (const RoundRow& x : r.rounds) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {:.0f} |\n", md(x.loop_id), x.round,
                       x.decision, candidates_text(x.candidates), x.candidate.empty() ? "–" : md(x.candidate),
                       x.family.empty() ? "–" : md(x.family), round_speedup_text(x), md(x.reason), x.seconds);
  }
}

}  // namespace

std::string to_markdown(const DefinitionReport& r, const MarkdownOptions& options) {
  std::string out = fmt::format("## {}\n\n", md(r.definition));
  if (!r.tampered.empty()) {
    out += fmt::format(
        "**Not ranked: {} row(s) of this definition were edited after kharness recorded them** "
        "(`kharness archive verify --deep` lists every problem):\n\n",
        r.tampered.size());
    for (std::size_t i = 0; i < std::min<std::size_t>(r.tampered.size(), 20); ++i)
      out += "- " + md(r.tampered[i]) + "\n";
    return out;
  }
  out += r.baseline.empty()
             ? "Baseline: the reference latency recorded in each trace (no baseline solution archived).\n\n"
             : fmt::format(
                   "Baseline: `{}` (its latency per workload; the recorded reference latency where it did "
                   "not run).\n\n",
                   r.baseline);
  out += fmt::format(
      "{} workloads, {} candidates. Contest score: the mean, over the workloads, of each latest trace's "
      "speedup over the baseline solution, 0 if any workload failed; a promotion's speedup is another figure "
      "(see Promotions).\n\n",
      r.workloads.size(), r.candidates.size());
  leaderboard(out, r, options.top);
  out += "\n#### fast_p\n\n";
  fast_p_table(out, r, std::min<std::size_t>(options.top, 10));
  if (!r.promotions.empty()) promotions_table(out, r);
  if (!r.rounds.empty()) rounds_table(out, r);
  if (options.plots) {
    out += "\n#### Plots\n\n";
    for (const char* p : {"speedup", "fast_p", "latency", "rounds", "roofline"})
      out += fmt::format("![{0}]({0}.svg)\n", p);
  }
  for (std::size_t i = 0; i < std::min(options.workload_tables, r.candidates.size()); ++i) {
    workload_table(out, r, r.candidates[i]);
  }
  return out;
}

}  // namespace kh::report
