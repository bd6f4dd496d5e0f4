#include "report/ablation_report.h"

#include <fmt/format.h>

#include "error/error.h"
#include "report/json_fields.h"

namespace kh::report {
namespace {

using nlohmann::ordered_json;

ordered_json parsed(const std::map<std::string, std::string>& manifest, const std::string& key) {
  const auto it = manifest.find(key);
  if (it == manifest.end()) return ordered_json();
  return ordered_json::parse(it->second, nullptr, false);
}

// fast_p of a best whose per-workload speedups over the baseline are `speedups`; a best
// that is the baseline itself is 1x everywhere.
std::vector<double> fast_p_of(const std::vector<double>& speedups, std::span<const double> sweep) {
  std::vector<double> out;
  for (double p : sweep) {
    if (speedups.empty()) {
      out.push_back(1.0 > p ? 1.0 : 0.0);
      continue;
    }
    std::size_t n = 0;
    for (double s : speedups) n += s > p ? 1 : 0;
    out.push_back(static_cast<double>(n) / static_cast<double>(speedups.size()));
  }
  return out;
}

ArmReport arm_report(const ArchiveReader& reader, const ordered_json& spec, const std::string& loop_id,
                     const ordered_json& progress, std::span<const double> sweep) {
  ArmReport a;
  a.name = text_at(spec, "name");
  a.loop_id = loop_id;
  a.spec = spec;
  a.stopped_by = text_at(progress, "stopped_by");
  std::vector<double> best_workloads;
  for (const DecisionEntry& d : reader.loop_decisions(loop_id, 100000)) {
    const ordered_json evidence = ordered_json::parse(d.evidence_json, nullptr, false);
    const DecisionBudget b = decision_budget(evidence);
    a.spent.round = d.round;
    a.spent.candidates += b.candidates;
    a.spent.seconds += b.seconds;
    a.spent.tokens += b.tokens;
    a.statuses += candidate_statuses(evidence);
    if (d.kind == "promote") {
      ArmPromotion p{d.round, d.solution_id, "", PromotedSpeedup::from_evidence(evidence)};
      if (d.solution_id) {
        if (const auto s = reader.solution(*d.solution_id)) p.solution = s->name;
      }
      if (p.speedup) {
        a.spent.best_speedup = p.speedup->over_baseline;
        best_workloads.clear();
        for (const WorkloadSpeedup& w : p.speedup->workloads)
          best_workloads.push_back(w.baseline_ms / w.candidate_ms);
      }
      a.promotions.push_back(std::move(p));
    }
    a.curve.push_back(a.spent);
  }
  a.best_speedup = a.spent.best_speedup;
  a.fast_p = fast_p_of(best_workloads, sweep);
  return a;
}

}  // namespace

AblationReport load_ablation_report(const ArchiveReader& reader, std::string_view id) {
  const auto manifest = reader.manifest("ablation:" + std::string(id));
  const ordered_json config = parsed(manifest, "config");
  if (!config.is_object()) {
    const auto known = reader.ablations();
    throw Error(
        Location{reader.dir().string(), 0, "--ablation"},
        fmt::format("the archive holds no ablation '{}' ({})", id,
                    known.empty() ? "it has none" : fmt::format("it has: {}", fmt::join(known, ", "))));
  }
  AblationReport r;
  r.id = std::string(id);
  r.definition = text_at(config, "definition");
  r.start = text_at(config, "start");
  const auto seed = config.find("seed");
  if (seed != config.end() && seed->is_number_unsigned()) r.seed = seed->get<std::uint64_t>();
  r.budget = object_at(config, "budget");
  r.promotion = object_at(config, "promotion");
  r.sweep.assign(default_p_sweep().begin(), default_p_sweep().end());
  const ordered_json progress = object_at(parsed(manifest, "progress"), "arms");
  for (const ordered_json& spec : array_at(config, "arms")) {
    const std::string name = text_at(spec, "name");
    const std::string loop_id = text_at(object_at(config, "loops"), name.c_str());
    r.arms.push_back(arm_report(reader, spec, loop_id.empty() ? r.id + "/" + name : loop_id,
                                object_at(progress, name.c_str()), r.sweep));
  }
  r.head_to_head = HeadToHead::from_json(parsed(manifest, "head_to_head"));
  return r;
}

}  // namespace kh::report
