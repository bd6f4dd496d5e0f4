#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/dashboard/html.h"
#include "report/dashboard/pages.h"
#include "report/dashboard/source_view.h"

namespace kh::report::dashboard {
namespace {

constexpr std::size_t kMaxShownBytes = 256 * 1024;  // of a log or profile, so a page stays light

std::string clipped(const std::optional<std::string>& text) {
  if (!text) return "(the blob is missing from the archive)";
  if (text->size() <= kMaxShownBytes) return *text;
  return text->substr(0, kMaxShownBytes) + fmt::format("\n… {} more bytes", text->size() - kMaxShownBytes);
}

std::string solution_link(const SolutionEntry& s) {
  return anchor(candidate_href(s.id), s.name) + fmt::format(" <span class=\"meta\">#{}</span>", s.id);
}

void facts(HtmlPage& page, const SolutionEntry& s) {
  const auto opt = [](const std::optional<std::string>& v) { return html_escape(v.value_or("–")); };
  page.table({"field", "value"},
             {{"content id", "<code>" + html_escape(s.content_id) + "</code>"},
              {"definition", anchor(definition_href(s.definition), s.definition)},
              {"author", html_escape(s.author)},
              {"language", html_escape(s.language)},
              {"role", html_escape(s.role)},
              {"agent", opt(s.agent)},
              {"hypothesis", opt(s.hypothesis)},
              {"technique family", opt(s.technique_family)},
              {"prompt", s.prompt_blob ? anchor("/blob/" + *s.prompt_blob, "prompt") : "–"},
              {"response", s.response_blob ? anchor("/blob/" + *s.response_blob, "response") : "–"},
              {"archived", html_escape(s.created_at)}},
             "facts");
}

// The chain of parents, oldest first, ending with this solution.
void lineage(HtmlPage& page, const ArchiveReader& reader, const SolutionEntry& s) {
  std::vector<SolutionEntry> chain{s};
  while (chain.back().parent_id && chain.size() < kMaxLineage) {
    auto parent = reader.solution(*chain.back().parent_id);
    if (!parent) break;
    chain.push_back(std::move(*parent));
  }
  std::string html = "<p class=\"lineage\">";
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    html += (it == chain.rbegin() ? "" : " → ") + solution_link(*it);
  }
  if (chain.back().parent_id) html += " <span class=\"meta\">(older ancestors not shown)</span>";
  page.heading(2, "Lineage", "lineage").raw(html + "</p>\n");
  std::vector<SolutionEntry> kids = reader.children(s.id, 50);
  if (!kids.empty()) {
    std::string list = "<p>children: ";
    for (const SolutionEntry& k : kids) list += solution_link(k) + " ";
    page.raw(list + "</p>\n");
  }
}

void sources(HtmlPage& page, const ArchiveReader& reader, const SolutionEntry& s) {
  const auto mine = solution_sources(reader.blob(s.json_blob));
  page.heading(2, "Sources", "sources");
  if (mine.empty()) page.paragraph("no sources in the solution document", "meta");
  for (const auto& [path, content] : mine) page.heading(3, path).pre(content, "source");
  if (!s.parent_id) return;
  const auto parent = reader.solution(*s.parent_id);
  if (!parent) return;
  page.heading(2, "Diff against parent " + parent->name, "diff");
  page.raw(sources_diff_html(solution_sources(reader.blob(parent->json_blob)), mine));
}

void build(HtmlPage& page, const ArchiveReader& reader, RowId id) {
  page.heading(2, "Build", "build");
  const auto b = reader.latest_build(id);
  if (!b) {
    page.paragraph("no build archived (imported solutions have none)", "meta");
    return;
  }
  page.paragraph(fmt::format("{} · {} · {:.2f} s{} · {}", b->status, b->compiler, b->seconds,
                             b->cache_hit ? " (cache hit)" : "", b->message),
                 "meta");
  if (b->log_blob) page.pre(clipped(reader.blob(*b->log_blob)), "build-log");
}

void traces(HtmlPage& page, const ArchiveReader& reader, RowId id, std::size_t trace_page) {
  page.heading(2, "Traces", "traces");
  std::vector<std::vector<std::string>> rows;
  for (const TraceEntry& t : reader.solution_traces(id, trace_page * kTracePage, kTracePage + 1)) {
    if (rows.size() == kTracePage) break;
    rows.push_back({std::to_string(t.id), t.run_id ? std::to_string(*t.run_id) : "import",
                    html_escape(t.workload_uuid.substr(0, 8)), status_cell(t.status),
                    number_cell(t.latency_ms), number_cell(t.reference_latency_ms),
                    number_cell(t.speedup, "{:.3f}x"), percent_cell(t.sol_fraction),
                    html_escape(t.timestamp)});
  }
  if (rows.empty())
    page.paragraph("no traces", "meta");
  else
    page.table(
        {"trace", "run", "workload", "status", "latency (ms)", "reference (ms)", "speedup", "SOL", "time"},
        rows, "traces");
  const std::string base = candidate_href(id);
  std::string nav = "<p class=\"pager\">";
  if (trace_page > 0) nav += anchor(fmt::format("{}?page={}", base, trace_page - 1), "previous traces") + " ";
  if (rows.size() == kTracePage)
    nav += anchor(fmt::format("{}?page={}", base, trace_page + 1), "next traces");
  page.raw(nav + "</p>\n");
}

void profiles_and_decisions(HtmlPage& page, const ArchiveReader& reader, RowId id) {
  page.heading(2, "Profiles", "profiles");
  std::vector<std::vector<std::string>> rows;
  for (const ProfileEntry& p : reader.profiles(id, 50)) {
    rows.push_back({html_escape(p.kind), html_escape(p.workload_uuid.value_or("–")),
                    "<code>" + html_escape(p.summary_json.substr(0, 400)) + "</code>",
                    anchor("/blob/" + p.blob, "report")});
  }
  if (rows.empty())
    page.paragraph("no profile archived", "meta");
  else
    page.table({"kind", "workload", "summary", ""}, rows, "profiles");
  rows.clear();
  for (const DecisionEntry& d : reader.solution_decisions(id)) {
    const auto speedup =
        PromotedSpeedup::from_evidence(nlohmann::ordered_json::parse(d.evidence_json, nullptr, false));
    rows.push_back({html_escape(d.loop_id), std::to_string(d.round),
                    fmt::format("<span class=\"badge {0}\">{0}</span>", html_escape(d.kind)),
                    d.solution_id == id ? "candidate" : "baseline",
                    "<span class=\"speedup\">" + promoted_speedup_text(speedup) + "</span>",
                    "<code>" + html_escape(d.evidence_json.substr(0, 400)) + "</code>"});
  }
  if (!rows.empty())
    page.heading(2, "Decisions", "decisions")
        .table({"loop", "round", "decision", "as", "speedup over the loop's baseline", "evidence"}, rows,
               "decisions");
}

}  // namespace

HttpResponse candidate_page(const ArchiveReader& reader, RowId id, std::size_t trace_page) {
  const auto s = reader.solution(id);
  if (!s) return not_found(fmt::format("No solution with id {} in this archive.", id));
  HtmlPage page(s->name,
                {{"definitions", "/"}, {s->definition, definition_href(s->definition)}, {s->name, ""}});
  page.heading(1, s->name);
  facts(page, *s);
  lineage(page, reader, *s);
  sources(page, reader, *s);
  build(page, reader, id);
  traces(page, reader, id, trace_page);
  profiles_and_decisions(page, reader, id);
  return HttpResponse{200, "text/html; charset=utf-8", page.finish()};
}

}  // namespace kh::report::dashboard
