#include "report/plot_inputs.h"

#include <nlohmann/json.hpp>
#include <set>

namespace kh::report {
namespace {

using nlohmann::json;

std::vector<std::string> declared_var_axes(const std::optional<std::string>& definition_json) {
  std::vector<std::string> out;
  if (!definition_json) return out;
  const json d = json::parse(*definition_json, nullptr, false);
  if (!d.is_object() || !d.contains("axes") || !d["axes"].is_object()) return out;
  for (const auto& [name, axis] : d["axes"].items()) {
    if (axis.is_object() && axis.value("type", std::string()) == "var") out.push_back(name);
  }
  return out;
}

std::optional<double> axis_value(const json& axes, const std::string& name) {
  if (!axes.is_object() || !axes.contains(name) || !axes[name].is_number()) return std::nullopt;
  return axes[name].get<double>();
}

// Among the candidates, the axis whose values differ most across workloads.
std::string most_varied(const std::vector<json>& axes, std::vector<std::string> names) {
  if (names.empty()) {
    for (const json& a : axes) {
      if (!a.is_object()) continue;
      for (const auto& [name, value] : a.items()) {
        if (value.is_number()) names.push_back(name);
      }
    }
  }
  std::string best;
  std::size_t best_count = 0;
  for (const std::string& name : names) {
    std::set<double> seen;
    for (const json& a : axes) {
      if (auto v = axis_value(a, name)) seen.insert(*v);
    }
    if (seen.size() > best_count) {
      best = name;
      best_count = seen.size();
    }
  }
  return best;
}

void take_peaks(RooflineData& r, const json& sol) {
  if (r.bandwidth > 0 || !sol.contains("device_peaks")) return;
  const json& p = sol["device_peaks"];
  r.compute_unit = sol.value("compute", std::string("fp32"));
  r.bandwidth = p.value("bandwidth_bytes_per_s", 0.0);
  r.compute_peak = p.value(r.compute_unit + "_flops", 0.0);  // fp32_flops, bf16_tensor_flops, ...
}

}  // namespace

void fill_var_axis(PlotInputs& in, const std::optional<std::string>& definition_json,
                   const DefinitionReport& report) {
  std::vector<json> axes;
  axes.reserve(report.workloads.size());
  for (const WorkloadColumn& w : report.workloads) axes.push_back(json::parse(w.axes_json, nullptr, false));
  in.var_axis = most_varied(axes, declared_var_axes(definition_json));
  in.var_values.clear();
  for (const json& a : axes)
    in.var_values.push_back(in.var_axis.empty() ? std::nullopt : axis_value(a, in.var_axis));
}

RooflineData load_roofline(const ArchiveReader& reader, const DefinitionReport& report, std::size_t top) {
  RooflineData r;
  const std::size_t n = std::min(top, report.candidates.size());
  for (std::size_t c = 0; c < n; ++c) {
    const CandidateRow& row = report.candidates[c];
    std::vector<RowId> ids;
    std::vector<std::size_t> columns;
    for (std::size_t w = 0; w < row.trace_ids.size(); ++w) {
      if (!row.trace_ids[w] || !row.outcomes[w].passed() || !row.outcomes[w].latency_ms) continue;
      ids.push_back(*row.trace_ids[w]);
      columns.push_back(w);
    }
    const std::vector<std::string> lines = reader.trace_lines(ids);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const json t = json::parse(lines[i], nullptr, false);
      const json* sol = t.is_object() ? &t : nullptr;
      for (const char* key : {"evaluation", "kharness", "speed_of_light"}) {
        sol = sol != nullptr && sol->is_object() && sol->contains(key) ? &(*sol)[key] : nullptr;
      }
      if (sol == nullptr || !sol->is_object()) continue;
      const double flops = sol->value("flops", 0.0), bytes = sol->value("bytes", 0.0);
      if (flops <= 0 || bytes <= 0) continue;
      take_peaks(r, *sol);
      const double seconds = *row.outcomes[columns[i]].latency_ms / 1e3;
      r.points.push_back({c, report.workloads[columns[i]].uuid, flops / bytes, flops / seconds});
    }
  }
  return r;
}

PlotInputs load_plot_inputs(const ArchiveReader& reader, const DefinitionReport& report, std::size_t top) {
  PlotInputs in;
  fill_var_axis(in, reader.definition_json(report.definition), report);
  for (const DecisionEntry& d : reader.decisions(report.definition, 10000)) {
    if (d.solution_id) in.rounds[*d.solution_id] = d.round;
  }
  in.roofline = load_roofline(reader, report, top);
  return in;
}

}  // namespace kh::report
