// The optimisation history of a definition as a tree: each solution under its parent,
// with its score and the controller's decisions on it. One page holds kHistoryPage
// solutions (by id); a parent on an earlier page makes its child a root here.
#include <fmt/format.h>

#include <unordered_map>

#include "report/dashboard/html.h"
#include "report/dashboard/pages.h"

namespace kh::report::dashboard {
namespace {

struct Node {
  const SolutionEntry* solution = nullptr;
  std::vector<std::size_t> children;
};

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
    for (const DecisionEntry* d : it->second) {
      html += fmt::format(" <span class=\"badge {0}\">round {1}: {0}</span>", html_escape(d->kind), d->round);
    }
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
    if (d.solution_id) decided[*d.solution_id].push_back(&d);
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
  page.paragraph(fmt::format("{} solutions, {} decisions. Each solution sits under its parent.",
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
  page.raw(pager(definition_href(name) + "/history", page_index,
                 static_cast<std::size_t>(reader.solution_count(name)), kHistoryPage));
  return HttpResponse{200, "text/html; charset=utf-8", page.finish()};
}

}  // namespace kh::report::dashboard
