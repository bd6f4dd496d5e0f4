#include <fmt/format.h>

#include "report/report_formats.h"

namespace kh::report {
namespace {

std::string cell(const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : std::string(); }

std::string id_cell(const std::optional<RowId>& v) { return v ? std::to_string(*v) : std::string(); }

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string leaderboard_csv(std::span<const DefinitionReport> reports) {
  std::string out =
      "definition,rank,solution,solution_id,is_baseline,score,mean_speedup,win_rate,passed,total,sol_geomean";
  const std::vector<double> sweep = reports.empty() ? std::vector<double>{} : reports.front().sweep;
  for (double p : sweep) out += fmt::format(",fast_{:g}", p);
  out += '\n';
  for (const DefinitionReport& r : reports) {
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
      const CandidateRow& c = r.candidates[i];
      out += fmt::format("{},{},{},{},{},{:.6g},{:.6g},{:.6g},{},{},{}", csv_field(r.definition), i + 1,
                         csv_field(c.name), id_cell(c.solution_id), c.is_baseline ? 1 : 0, c.score.contest,
                         c.score.mean_speedup, c.score.win_rate, c.score.passed, c.score.total,
                         cell(c.score.sol_geomean));
      for (double f : c.score.fast_p) out += fmt::format(",{:.6g}", f);
      out += '\n';
    }
  }
  return out;
}

std::string workloads_csv(std::span<const DefinitionReport> reports) {
  std::string out =
      "definition,solution,solution_id,workload,axes,status,latency_ms,baseline_ms,speedup,sol_fraction,"
      "trace_id\n";
  for (const DefinitionReport& r : reports) {
    for (const CandidateRow& c : r.candidates) {
      for (std::size_t w = 0; w < r.workloads.size(); ++w) {
        const WorkloadOutcome& o = c.outcomes[w];
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(r.definition), csv_field(c.name),
                           id_cell(c.solution_id), csv_field(r.workloads[w].uuid),
                           csv_field(r.workloads[w].axes_json), o.status, cell(o.latency_ms),
                           cell(o.baseline_ms), cell(o.speedup()), cell(o.sol_fraction),
                           id_cell(c.trace_ids[w]));
      }
    }
  }
  return out;
}

}  // namespace kh::report
