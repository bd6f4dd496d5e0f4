// An ablation's comparison (report/ablation_report.h): the arms with their budget spent
// and best reported speedup, the head-to-head, candidates by status, the best speedup
// against budget, promotions, and the three plots inline.
#include <fmt/format.h>

#include "error/error.h"
#include "report/ablation_report.h"
#include "report/dashboard/html.h"
#include "report/dashboard/pages.h"
#include "report/json_fields.h"

namespace kh::report::dashboard {
namespace {

std::string switch_of(const nlohmann::ordered_json& spec, const char* key) {
  const auto it = spec.find(key);
  return it != spec.end() && it->is_boolean() && !it->get<bool>() ? "off" : "on";
}

std::string agents_of(const nlohmann::ordered_json& spec) {
  std::string out;
  for (const auto& a : array_at(spec, "agents")) {
    if (a.is_string()) out += (out.empty() ? "" : "+") + a.get<std::string>();
  }
  return out;
}

std::string passes_text(const std::vector<std::optional<double>>& passes) {
  std::string out;
  for (const auto& p : passes) out += (out.empty() ? "" : ", ") + (p ? format_speedup(*p) : std::string("–"));
  return out;
}

void arms_table(HtmlPage& page, const AblationReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const ArmReport& a : r.arms) {
    const std::string model = text_at(a.spec, "model");
    rows.push_back({html_escape(a.name), html_escape(agents_of(a.spec)),
                    html_escape(model.empty() ? "–" : model), switch_of(a.spec, "skills"),
                    switch_of(a.spec, "evidence"),
                    "<span class=\"speedup\">" + format_speedup(a.best_speedup) + "</span>",
                    std::to_string(a.promotions.size()), std::to_string(a.spent.round),
                    std::to_string(a.spent.candidates), fmt::format("{:.1f}", a.spent.seconds),
                    std::to_string(a.spent.tokens), html_escape(a.stopped_by.empty() ? "–" : a.stopped_by)});
  }
  page.table({"arm", "agents", "model", "skills", "evidence", "best speedup over the baseline", "promotions",
              "rounds", "candidates", "seconds", "tokens", "stopped by"},
             rows, "arms");
}

void head_to_head(HtmlPage& page, const AblationReport& r) {
  page.heading(2, "Head to head: the paired difference", "head-to-head");
  if (!r.head_to_head) {
    page.paragraph("Not measured (the ablation has not finished, or ran with --final-passes 0).", "meta");
    return;
  }
  const HeadToHead& h = *r.head_to_head;
  if (!h.note.empty()) {
    page.paragraph(h.note, "meta");
    return;
  }
  page.paragraph(
      fmt::format("The start and each arm's best side by side, {} protocol, {} pass(es) in alternating "
                  "order; ratio above 1: the first arm's best is faster.",
                  h.protocol, h.passes),
      "meta");
  std::vector<std::vector<std::string>> rows;
  for (const ArmPair& p : h.pairs) {
    rows.push_back({html_escape(p.a), html_escape(p.b), p.ratio ? format_speedup(*p.ratio) : "–",
                    passes_text(p.passes), fmt::format("{:.1f}%", 100 * p.noise),
                    fmt::format("{:.1f}%", 100 * p.drift), html_escape(p.verdict)});
  }
  page.table({"arm", "against", "ratio", "per pass", "noise", "drift", "verdict"}, rows, "pairs");
}

void statuses_and_promotions(HtmlPage& page, const AblationReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const ArmReport& a : r.arms) {
    const CandidateStatuses& s = a.statuses;
    rows.push_back({html_escape(a.name), std::to_string(s.passed), std::to_string(s.incorrect),
                    std::to_string(s.reward_hack), std::to_string(s.compile_error), std::to_string(s.crashed),
                    std::to_string(s.refused), std::to_string(s.total())});
  }
  page.heading(2, "Candidates by status", "statuses")
      .table({"arm", "passed", "incorrect", "reward hack", "compile error", "crashed or timed out",
              "refused answer", "total"},
             rows, "statuses");
  rows.clear();
  for (const ArmReport& a : r.arms) {
    for (const ArmPromotion& p : a.promotions) {
      rows.push_back(
          {html_escape(a.name), std::to_string(p.round),
           p.solution_id ? anchor(candidate_href(*p.solution_id), p.solution) : html_escape(p.solution),
           "<span class=\"speedup\">" + promoted_speedup_text(p.speedup) + "</span>",
           p.speedup ? passes_text(p.speedup->gate_repeats) : "–"});
    }
  }
  page.heading(2, "Promotions", "promotions");
  if (rows.empty()) {
    page.paragraph("No arm promoted a candidate.", "meta");
  } else {
    page.table({"arm", "round", "solution", "speedup over the loop's baseline", "gate repeats (evidence)"},
               rows, "promotions");
  }
}

}  // namespace

HttpResponse ablation_page(const ArchiveReader& reader, std::string_view id) {
  AblationReport r;
  try {
    r = load_ablation_report(reader, id);
  } catch (const Error& e) {
    return not_found(e.what());
  }
  HtmlPage page("ablation " + r.id, {{"definitions", "/"}, {"ablation " + r.id, ""}});
  page.heading(1, "Ablation " + r.id);
  page.paragraph(fmt::format("{} · start {} · seed {} · budget of every arm: {}", r.definition,
                             r.start.substr(0, 12), r.seed, r.budget.dump()),
                 "meta");
  page.raw("<p>" +
           anchor(definition_href(r.definition) + "/history", "optimisation history of " + r.definition) +
           "</p>\n");
  page.paragraph(
      "Best speedup: the reported speedup of the arm's last promotion (its robust confirmation over the "
      "loop's "
      "baseline); 1.000x when nothing was promoted.",
      "meta");
  arms_table(page, r);
  head_to_head(page, r);
  statuses_and_promotions(page, r);
  page.heading(2, "Plots", "plots").raw("<div class=\"plots\">\n");
  for (const NamedPlot& p : ablation_plots(r)) {
    page.raw(fmt::format("<figure id=\"plot-{}\">{}</figure>\n", p.name, p.svg));
  }
  page.raw("</div>\n");
  return HttpResponse{200, "text/html; charset=utf-8", page.finish()};
}

}  // namespace kh::report::dashboard
