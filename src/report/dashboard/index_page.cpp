#include <fmt/format.h>

#include "report/dashboard/html.h"
#include "report/dashboard/pages.h"

namespace kh::report::dashboard {

std::string candidate_href(RowId id) { return "/candidate/" + std::to_string(id); }

std::string definition_href(std::string_view name) { return "/definition/" + url_encode(name); }

std::string ablation_href(std::string_view id) { return "/ablation/" + url_encode(id); }

std::string promoted_speedup_text(const std::optional<PromotedSpeedup>& s) {
  return s ? format_speedup(s->over_baseline) : std::string("–");
}

std::string status_cell(std::string_view status) {
  const bool ok = status == "PASSED";
  return fmt::format("<span class=\"{}\">{}</span>", ok ? "status-PASSED" : "status-fail",
                     html_escape(status));
}

std::string number_cell(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("–");
}

std::string percent_cell(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}%", *v * 100) : std::string("–");
}

std::string pager(std::string_view base, std::size_t page, std::size_t total, std::size_t per_page) {
  const std::size_t pages = (total + per_page - 1) / per_page;
  if (pages <= 1) return "";
  std::string out = fmt::format("<p class=\"pager\">page {} of {}: ", page + 1, pages);
  if (page > 0) out += anchor(fmt::format("{}?page={}", base, page - 1), "previous") + " ";
  if (page + 1 < pages) out += anchor(fmt::format("{}?page={}", base, page + 1), "next");
  return out + "</p>\n";
}

HttpResponse index_page(const ArchiveReader& reader) {
  HtmlPage page("Definitions", {{"definitions", ""}});
  page.heading(1, "Definitions");
  page.paragraph("Archive: " + reader.dir().string(), "meta");
  std::vector<std::vector<std::string>> rows;
  for (const DefinitionEntry& d : reader.definitions()) {
    rows.push_back({anchor(definition_href(d.name), d.name), html_escape(d.op_type),
                    std::to_string(d.workloads), std::to_string(d.solutions), std::to_string(d.traces),
                    anchor(definition_href(d.name) + "/history", "history")});
  }
  if (rows.empty())
    page.paragraph("The archive holds no definition yet.");
  else
    page.table({"definition", "op type", "workloads", "solutions", "traces", ""}, rows, "definitions");
  rows.clear();
  for (const std::string& id : reader.ablations()) rows.push_back({anchor(ablation_href(id), id)});
  if (!rows.empty()) page.heading(2, "Ablations", "ablations").table({"ablation"}, rows, "ablations");
  return HttpResponse{200, "text/html; charset=utf-8", page.finish()};
}

}  // namespace kh::report::dashboard
