#include "archive/decision_check.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>

#include "archive/document_rows.h"
#include "archive/sqlite_statement.h"

namespace kh::archive {
namespace {

using ordered_json = nlohmann::ordered_json;

struct LineFigures {
  std::string status;
  std::optional<double> latency_ms;
};

// uuid -> what the run's trace line says (the first trace of each workload).
std::map<std::string, LineFigures> run_figures(const Database& db, std::int64_t run_id) {
  std::map<std::string, LineFigures> out;
  Statement s = db.prepare("SELECT id, line FROM traces WHERE run_id = ? ORDER BY id");
  s.bind(1, run_id);
  while (s.step()) {
    try {
      const TraceFacts f = trace_row(s.column_text(1), Location{"trace", 0, ""}).facts;
      out.emplace(f.workload_uuid, LineFigures{f.status, f.status == "PASSED" ? f.latency_ms : std::nullopt});
    } catch (const Error&) {
      // An unreadable line is trace_problems()' finding; here the sweep cannot match it.
    }
  }
  return out;
}

bool same(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

bool is_sweep(const ordered_json& j) {
  return j.is_object() && j.contains("run_id") && j["run_id"].is_number_integer() &&
         j["run_id"].get<std::int64_t>() > 0 && j.contains("workloads") && j["workloads"].is_array();
}

void check_sweep(const Database& db, RowId decision, const ordered_json& sweep,
                 std::vector<std::string>& out) {
  const std::int64_t run = sweep["run_id"].get<std::int64_t>();
  const auto figures = run_figures(db, run);
  if (figures.empty()) {
    out.push_back(fmt::format("decision {}: cites run {}, which has no readable trace", decision, run));
    return;
  }
  for (const ordered_json& w : sweep["workloads"]) {
    const std::string uuid = w.value("workload", std::string());
    const auto it = figures.find(uuid);
    if (it == figures.end()) {
      out.push_back(fmt::format("decision {}: run {} has no trace of workload {}", decision, run, uuid));
      continue;
    }
    const std::string status = w.value("status", std::string());
    const std::optional<double> ms = w.contains("latency_ms") && w["latency_ms"].is_number()
                                         ? std::optional(w["latency_ms"].get<double>())
                                         : std::nullopt;
    const bool latency_agrees =
        ms.has_value() == it->second.latency_ms.has_value() && (!ms || same(*ms, *it->second.latency_ms));
    if (status != it->second.status || !latency_agrees) {
      out.push_back(fmt::format(
          "decision {}: says workload {} of run {} was {} in {} ms; the run's trace line "
          "says {} in {} ms",
          decision, uuid.substr(0, 8), run, status, ms ? fmt::format("{}", *ms) : "-", it->second.status,
          it->second.latency_ms ? fmt::format("{}", *it->second.latency_ms) : "-"));
    }
  }
}

void walk(const Database& db, RowId decision, const ordered_json& j, std::vector<std::string>& out) {
  if (is_sweep(j)) {
    check_sweep(db, decision, j, out);
    return;
  }
  if (!j.is_structured()) return;
  for (const auto& child : j) walk(db, decision, child, out);
}

std::optional<double> latency_of(const ordered_json& w) {
  if (!w.contains("latency_ms") || !w["latency_ms"].is_number()) return std::nullopt;
  const double v = w["latency_ms"].get<double>();
  return v > 0 ? std::optional(v) : std::nullopt;
}

// baseline / contender over the workloads both timed, weighed as the decision's promotion rule
// says (control/sweep.h): the geometric mean of the ratios, or with "mean" the ratio of the sums.
std::optional<double> paired(const ordered_json& baseline, const ordered_json& contender, bool mean) {
  double sum = 0, baseline_sum = 0, contender_sum = 0;
  int n = 0;
  for (const ordered_json& b : baseline.value("workloads", ordered_json::array())) {
    for (const ordered_json& c : contender.value("workloads", ordered_json::array())) {
      if (b.value("workload", "") != c.value("workload", "")) continue;
      const auto lb = latency_of(b), lc = latency_of(c);
      if (lb && lc) {
        sum += std::log(*lb / *lc);
        baseline_sum += *lb;
        contender_sum += *lc;
        ++n;
      }
      break;
    }
  }
  if (n == 0) return std::nullopt;
  return mean ? baseline_sum / contender_sum : std::exp(sum / n);
}

void check_promotion(RowId decision, const ordered_json& e, std::vector<std::string>& out) {
  if (e.value("decision", "") != "promote" || !e.contains("promotion") || !e["promotion"].is_object()) return;
  const ordered_json& repeats = e["promotion"].value("repeats", ordered_json::array());
  if (repeats.empty() || !repeats[0].contains("speedup") || !repeats[0]["speedup"].is_number()) return;
  const double claimed = repeats[0]["speedup"].get<double>();
  const ordered_json paired_repeats =
      e.value("paired_baseline", ordered_json::object()).value("repeats", ordered_json::array());
  const ordered_json baseline =
      paired_repeats.is_array() && !paired_repeats.empty() ? paired_repeats[0] : ordered_json::object();
  const std::string contender = e.value("contender", std::string());
  for (const ordered_json& c : e.value("candidates", ordered_json::array())) {
    if (c.value("content_id", "") != contender || !c.contains("full") || !c["full"].is_object()) continue;
    const ordered_json rule = e.value("promotion_rule", ordered_json::object());
    const bool mean = rule.is_object() && rule.value("objective", std::string()) == "mean";
    const std::optional<double> actual = paired(baseline, c["full"], mean);
    if (!actual || !same(*actual, claimed)) {
      out.push_back(
          fmt::format("decision {}: promotes with a first paired speedup of {}, but its sweeps give {}",
                      decision, claimed, actual ? fmt::format("{}", *actual) : "none"));
    }
    return;
  }
}

}  // namespace

std::vector<std::string> decision_problems(const Database& db, RowId decision_id,
                                           const ordered_json& evidence) {
  std::vector<std::string> out;
  if (!evidence.is_object()) {
    out.push_back(fmt::format("decision {}: its evidence is not a JSON object", decision_id));
    return out;
  }
  walk(db, decision_id, evidence, out);
  check_promotion(decision_id, evidence, out);
  return out;
}

std::vector<std::string> loop_decision_problems(const Database& db, std::string_view loop_id) {
  Statement s = db.prepare("SELECT id, evidence_json FROM decisions WHERE loop_id = ? ORDER BY id");
  s.bind(1, loop_id);
  std::vector<std::string> out;
  while (s.step()) {
    const auto evidence = nlohmann::ordered_json::parse(s.column_text(1), nullptr, false);
    for (std::string& p : decision_problems(db, s.column_int(0), evidence)) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace kh::archive
