#include "report/dashboard/source_view.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "report/dashboard/html.h"
#include "report/line_diff.h"

namespace kh::report::dashboard {
namespace {

std::string diff_line_html(const DiffLine& l) {
  const char* cls = l.op == DiffOp::added ? "add" : l.op == DiffOp::removed ? "del" : "same";
  const char* sign = l.op == DiffOp::added ? "+" : l.op == DiffOp::removed ? "-" : " ";
  return fmt::format("<div class=\"{}\">{}{}</div>", cls, sign, html_escape(l.text));
}

// Keeps lines within `context` of a change; longer unchanged runs become one gap line.
std::string folded(const std::vector<DiffLine>& diff, std::size_t context) {
  std::vector<bool> keep(diff.size(), false);
  for (std::size_t i = 0; i < diff.size(); ++i) {
    if (diff[i].op == DiffOp::same) continue;
    const std::size_t lo = i >= context ? i - context : 0;
    for (std::size_t j = lo; j <= std::min(diff.size() - 1, i + context); ++j) keep[j] = true;
  }
  std::string out;
  std::size_t skipped = 0;
  for (std::size_t i = 0; i < diff.size(); ++i) {
    if (!keep[i]) {
      ++skipped;
      continue;
    }
    if (skipped > 0) out += fmt::format("<div class=\"gap\">… {} unchanged lines</div>", skipped);
    skipped = 0;
    out += diff_line_html(diff[i]);
  }
  if (skipped > 0) out += fmt::format("<div class=\"gap\">… {} unchanged lines</div>", skipped);
  return out;
}

std::string file_diff(const std::string& path, const std::string& before, const std::string& after,
                      std::size_t context) {
  const auto diff = line_diff(before, after);
  if (!diff) {
    return fmt::format(
        "<h4>{}</h4><p class=\"meta\">too many changed lines to diff; the file is shown above</p>\n",
        html_escape(path));
  }
  const DiffStat st = diff_stat(*diff);
  if (st.added == 0 && st.removed == 0)
    return fmt::format("<h4>{} <span class=\"meta\">unchanged</span></h4>\n", html_escape(path));
  return fmt::format("<h4>{} <span class=\"meta\">+{} −{}</span></h4><pre class=\"diff\">{}</pre>\n",
                     html_escape(path), st.added, st.removed, folded(*diff, context));
}

}  // namespace

std::map<std::string, std::string> solution_sources(const std::optional<std::string>& document) {
  std::map<std::string, std::string> out;
  if (!document) return out;
  const auto doc = nlohmann::json::parse(*document, nullptr, false);
  if (!doc.is_object() || !doc.contains("sources") || !doc["sources"].is_array()) return out;
  for (const auto& s : doc["sources"]) {
    if (s.is_object() && s.contains("path") && s["path"].is_string() && s.contains("content") &&
        s["content"].is_string()) {
      out[s["path"].get<std::string>()] = s["content"].get<std::string>();
    }
  }
  return out;
}

std::string sources_diff_html(const std::map<std::string, std::string>& parent,
                              const std::map<std::string, std::string>& child, std::size_t context) {
  std::set<std::string> paths;
  for (const auto& [p, _] : parent) paths.insert(p);
  for (const auto& [p, _] : child) paths.insert(p);
  std::string out;
  for (const std::string& p : paths) {
    const auto a = parent.find(p), b = child.find(p);
    out += file_diff(p, a == parent.end() ? std::string() : a->second,
                     b == child.end() ? std::string() : b->second, context);
  }
  return out;
}

}  // namespace kh::report::dashboard
