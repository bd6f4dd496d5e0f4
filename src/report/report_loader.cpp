#include "report/report_loader.h"

#include <algorithm>

#include "error/error.h"

namespace kh::report {

DefinitionReport load_definition_report(const ArchiveReader& reader, std::string_view definition,
                                        const std::optional<std::string>& baseline) {
  if (std::vector<std::string> problems = reader.tamper_problems(definition); !problems.empty()) {
    DefinitionReport tampered;
    tampered.definition = std::string(definition);
    tampered.tampered = std::move(problems);
    return tampered;
  }
  const std::vector<WorkloadEntry> workloads = reader.workloads(definition);
  const std::vector<TraceEntry> traces = reader.traces(definition);
  LeaderboardInput in{std::string(definition), workloads,        traces, {},
                      baseline.has_value(),    default_p_sweep()};
  if (baseline) {
    in.baseline_names.push_back(*baseline);
  } else {
    for (const SolutionEntry& s : reader.baselines(definition)) {
      if (std::find(in.baseline_names.begin(), in.baseline_names.end(), s.name) == in.baseline_names.end()) {
        in.baseline_names.push_back(s.name);
      }
    }
  }
  DefinitionReport report = build_leaderboard(in);
  for (const DecisionEntry& d : reader.promotions(definition, 10000)) {
    PromotionRow row{d.loop_id, d.round, d.solution_id, "", std::nullopt};
    row.speedup =
        PromotedSpeedup::from_evidence(nlohmann::ordered_json::parse(d.evidence_json, nullptr, false));
    if (d.solution_id) {
      if (const auto s = reader.solution(*d.solution_id)) row.solution = s->name;
    }
    report.promotions.push_back(std::move(row));
  }
  for (const DecisionEntry& d : reader.decisions(definition, 10000)) report.rounds.push_back(round_row(d));
  return report;
}

std::vector<std::string> definitions_to_report(const ArchiveReader& reader,
                                               const std::optional<std::string>& only) {
  std::vector<std::string> names;
  for (const DefinitionEntry& d : reader.definitions()) {
    if (!only || d.name == *only) names.push_back(d.name);
  }
  if (only && names.empty()) {
    throw Error(Location{reader.dir().string(), 0, "--definition"},
                "the archive holds no definition or trace named '" + *only + "'");
  }
  return names;
}

}  // namespace kh::report
