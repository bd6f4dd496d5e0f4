// The optimisation history of a definition as a tree: each solution under its parent,
// with its score and the controller's decisions on it. One page holds kHistoryPage
// solutions (by id); a parent on an earlier page makes its child a root here.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "report/dashboard/html.h"
#include "report/dashboard/pages.h"
#include "report/round_rows.h"

namespace kh::report::dashboard {
namespace {

struct Node {
  const SolutionEntry* solution = nullptr;
  std::vector<std::size_t> children;
};

std::optional<PromotedSpeedup> speedup_of(const DecisionEntry& d) {
  return PromotedSpeedup::from_evidence(nlohmann::ordered_json::parse(d.evidence_json, nullptr, false));
}

// On the candidate decided on; a round that decided on none (archive_only) sits on the
// retained best it kept.
std::string decision_badge(const DecisionEntry& d, RowId on) {
  std::string text = fmt::format("round {}: {}", d.round, d.kind);
  if (d.kind == "promote") {
    if (const auto s = speedup_of(d))
      text += " · " + format_speedup(s->over_baseline) + " over the loop's baseline";
  }
  if (d.solution_id != on) text += " (kept)";
  return fmt::format(" <span class=\"badge {}\">{}</span>", html_escape(d.kind), html_escape(text));
}

// Every decision of the definition's loops, whatever its kind, in round order, with the round's
// record as `kharness report` lists it (report/round_rows.h).
void decisions_table(HtmlPage& page, const ArchiveReader& reader,
                     const std::vector<DecisionEntry>& decisions) {
  std::vector<std::vector<std::string>> rows;
  for (const DecisionEntry& d : decisions) {
    const RoundRow row = round_row(d);
    const std::optional<RowId> on = d.solution_id ? d.solution_id : d.baseline_id;
    const auto s = on ? reader.solution(*on) : std::nullopt;
    rows.push_back({html_escape(d.loop_id), std::to_string(d.round),
                    fmt::format("<span class=\"badge {0}\">{0}</span>", html_escape(d.kind)),
                    s ? anchor(candidate_href(s->id), s->name) + (d.solution_id ? "" : " (kept)") : "–",
                    html_escape(candidates_text(row.candidates)),
                    html_escape(row.candidate.empty() ? "–" : row.candidate),
                    html_escape(row.family.empty() ? "–" : row.family), html_escape(round_speedup_text(row)),
                    "<span class=\"speedup\">" + promoted_speedup_text(speedup_of(d)) + "</span>",
                    html_escape(row.reason), fmt::format("{:.0f}", row.seconds)});
  }
  page.heading(2, "Decisions", "decisions")
      .table({"loop", "round", "decision", "on", "candidates", "the round's candidate", "family",
              "speedup over the best it kept", "speedup over the loop's baseline", "reason", "seconds"},
             rows, "decisions");
}

std::string node_html(const SolutionEntry& s, const CachedDefinition& cached,
                      const std::unordered_map<RowId, std::vector<const DecisionEntry*>>& decided) {
  std::string html = anchor(candidate_href(s.id), s.name) + fmt::format(" <span class=\"meta\">#{}", s.id);
  if (s.agent) html += " · " + html_escape(*s.agent);
  if (s.technique_family) html += " · " + html_escape(*s.technique_family);
  html += "</span>";
  if (const auto it = cached.rank_of.find(s.id); it != cached.rank_of.end()) {
    html += fmt::format(" <span class=\"badge\">score {:.3f} · rank {}</span>",
                        cached.report.candidates[it->second].score.contest, it->second + 1);
  }
  if (const auto it = decided.find(s.id); it != decided.end()) {
    for (const DecisionEntry* d : it->second) html += decision_badge(*d, s.id);
  }
  if (s.hypothesis) html += "<br><span class=\"meta\">" + html_escape(*s.hypothesis) + "</span>";
  return html;
}

}  // namespace

HttpResponse history_page(const ArchiveReader& reader, const CachedDefinition& cached,
                          std::size_t page_index) {
  const std::string& name = cached.report.definition;
  const std::vector<SolutionEntry> solutions =
      reader.solutions(name, page_index * kHistoryPage, kHistoryPage);
  const std::vector<DecisionEntry> decisions = reader.decisions(name, 10000);
  std::unordered_map<RowId, std::vector<const DecisionEntry*>> decided;
  for (const DecisionEntry& d : decisions) {
    const std::optional<RowId> on = d.solution_id ? d.solution_id : d.baseline_id;
    if (on) decided[*on].push_back(&d);
  }
  std::unordered_map<RowId, std::size_t> at;
  std::vector<Node> nodes(solutions.size());
  for (std::size_t i = 0; i < solutions.size(); ++i) {
    nodes[i].solution = &solutions[i];
    at[solutions[i].id] = i;
  }
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < solutions.size(); ++i) {
    const auto p = solutions[i].parent_id ? at.find(*solutions[i].parent_id) : at.end();
    if (p == at.end())
      roots.push_back(i);
    else
      nodes[p->second].children.push_back(i);
  }
  HtmlPage page(name + " history", {{"definitions", "/"}, {name, definition_href(name)}, {"history", ""}});
  page.heading(1, "Optimisation history: " + name);
  page.paragraph(fmt::format("{} solutions, {} decisions (every round's, of every kind). Each solution sits "
                             "under its parent; a round that promoted nothing is shown on the best it kept.",
                             reader.solution_count(name), decisions.size()),
                 "meta");
  // Depth-first with an explicit stack: a lineage may be thousands deep.
  std::string html = "<ul class=\"tree\">\n";
  std::vector<std::pair<std::size_t, std::size_t>> stack;  // node, next child
  for (std::size_t r : roots) {
    html += "<li>" + node_html(*nodes[r].solution, cached, decided);
    stack.push_back({r, 0});
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      if (next == 0 && !nodes[n].children.empty()) html += "<ul class=\"tree\">\n";
      if (next < nodes[n].children.size()) {
        const std::size_t c = nodes[n].children[next++];
        html += "<li>" + node_html(*nodes[c].solution, cached, decided);
        stack.push_back({c, 0});
        continue;
      }
      if (!nodes[n].children.empty()) html += "</ul>";
      html += "</li>\n";
      stack.pop_back();
    }
  }
  page.raw(html + "</ul>\n");
  if (!decisions.empty()) decisions_table(page, reader, decisions);
  page.raw(pager(definition_href(name) + "/history", page_index,
                 static_cast<std::size_t>(reader.solution_count(name)), kHistoryPage));
  return HttpResponse{200, "text/html; charset=utf-8", page.finish()};
}

}  // namespace kh::report::dashboard
