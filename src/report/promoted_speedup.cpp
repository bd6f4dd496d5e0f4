#include "report/promoted_speedup.h"

#include <fmt/format.h>

#include "report/json_fields.h"

namespace kh::report {
namespace {

using nlohmann::ordered_json;

ordered_json optional_number(const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(); }

}  // namespace

ordered_json PromotedSpeedup::json() const {
  ordered_json ws = ordered_json::array();
  for (const WorkloadSpeedup& w : workloads) {
    ws.push_back({{"workload", w.uuid}, {"baseline_ms", w.baseline_ms}, {"candidate_ms", w.candidate_ms}});
  }
  ordered_json repeats = ordered_json::array();
  for (const auto& r : gate_repeats) repeats.push_back(optional_number(r));
  return {{"over_baseline", over_baseline},
          {"baseline", baseline},
          {"protocol", protocol},
          {"objective", objective},
          {"baseline_run", baseline_run},
          {"candidate_run", candidate_run},
          {"noise", noise},
          {"workloads", std::move(ws)},
          {"over_replaced", optional_number(over_replaced)},
          {"gate_repeats", std::move(repeats)}};
}

std::optional<PromotedSpeedup> PromotedSpeedup::from_evidence(const ordered_json& evidence) {
  if (!evidence.is_object()) return std::nullopt;
  const auto it = evidence.find("speedup");
  if (it == evidence.end() || !it->is_object()) return std::nullopt;
  const ordered_json& j = *it;
  const auto value = number_at(j, "over_baseline");
  if (!value || !(*value > 0)) return std::nullopt;
  PromotedSpeedup s;
  s.over_baseline = *value;
  s.baseline = text_at(j, "baseline");
  s.protocol = text_at(j, "protocol");
  s.objective = j.contains("objective") ? text_at(j, "objective") : "geomean";  // older records: geomean
  s.baseline_run = static_cast<std::int64_t>(number_at(j, "baseline_run").value_or(0));
  s.candidate_run = static_cast<std::int64_t>(number_at(j, "candidate_run").value_or(0));
  s.noise = number_at(j, "noise").value_or(0);
  s.over_replaced = number_at(j, "over_replaced");
  for (const ordered_json& w : array_at(j, "workloads")) {
    if (!w.is_object()) continue;
    s.workloads.push_back({text_at(w, "workload"), number_at(w, "baseline_ms").value_or(0),
                           number_at(w, "candidate_ms").value_or(0)});
  }
  for (const ordered_json& r : array_at(j, "gate_repeats")) {
    s.gate_repeats.push_back(r.is_number() ? std::optional<double>(r.get<double>()) : std::nullopt);
  }
  return s;
}

std::string format_speedup(double speedup) { return fmt::format("{:.3f}x", speedup); }

std::string format_speedup(double speedup, std::string_view objective) {
  return format_speedup(speedup) + (objective == "mean" ? " (mean latency)" : "");
}

}  // namespace kh::report
