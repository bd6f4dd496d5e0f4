#include "control/round_record.h"

#include <algorithm>

#include "error/error.h"

namespace kh::control {
namespace {

using json = nlohmann::ordered_json;

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

const json& field(const json& j, const char* name) {
  if (!j.is_object() || !j.contains(name)) throw Error(Location{"", 0, name}, "missing in the round record");
  return j.at(name);
}

std::string text(const json& j, const char* name) {
  const json& v = field(j, name);
  if (!v.is_string()) throw Error(Location{"", 0, name}, "is not a string");
  return v.get<std::string>();
}

std::optional<double> maybe_number(const json& j, const char* name) {
  if (!j.contains(name) || j.at(name).is_null()) return std::nullopt;
  if (!j.at(name).is_number()) throw Error(Location{"", 0, name}, "is not a number");
  return j.at(name).get<double>();
}

json hypothesis_json(const agents::Hypothesis& h) {
  return {{"regime", h.regime},
          {"direction", h.direction},
          {"family", h.family},
          {"rationale", h.rationale},
          {"directive", h.directive}};
}

agents::Hypothesis hypothesis_from(const json& j) {
  const json& h = field(j, "hypothesis");
  return {text(h, "regime"), text(h, "direction"), text(h, "family"), h.value("rationale", ""),
          h.value("directive", "")};
}

}  // namespace

std::string_view stage_name(Stage s) noexcept { return s == Stage::explore ? "explore" : "exploit"; }

std::optional<Stage> parse_stage(std::string_view name) noexcept {
  if (name == "explore") return Stage::explore;
  if (name == "exploit") return Stage::exploit;
  return std::nullopt;
}

std::optional<double> RoundRecord::speedup() const {
  if (!candidate_ms || !best_ms || *candidate_ms <= 0) return std::nullopt;
  return *best_ms / *candidate_ms;
}

std::optional<double> RoundRecord::retained_ms() const {
  if (decision == archive::DecisionKind::promote && candidate_ms) return candidate_ms;
  return best_ms;
}

const std::string& RoundRecord::technique_family() const noexcept {
  return candidate_family.empty() ? hypothesis.family : candidate_family;
}

nlohmann::ordered_json round_record_json(const RoundRecord& r) {
  nlohmann::ordered_json j = {{"loop_id", r.loop_id},
                              {"round", r.round},
                              {"stage", stage_name(r.stage)},
                              {"hypothesis", hypothesis_json(r.hypothesis)},
                              {"content_hash", r.content_hash},
                              {"candidate", r.candidate ? json(*r.candidate) : json(nullptr)},
                              {"candidate_ms", optional_number(r.candidate_ms)},
                              {"best_ms", optional_number(r.best_ms)},
                              {"speedup", optional_number(r.speedup())},
                              {"decision", archive::decision_kind_name(r.decision)},
                              {"passed", r.passed},
                              {"failure", r.failure}};
  // Written only when it is not geomean, so that records made before the choice read as before.
  if (r.objective != Objective::geomean) j["objective"] = objective_name(r.objective);
  if (!r.candidate_family.empty()) j["candidate_family"] = r.candidate_family;
  return j;
}

RoundRecord round_record_from_json(const nlohmann::ordered_json& j) {
  RoundRecord r;
  r.loop_id = text(j, "loop_id");
  if (!field(j, "round").is_number_integer()) throw Error(Location{"", 0, "round"}, "is not an integer");
  r.round = j.at("round").get<std::int64_t>();
  const auto stage = parse_stage(text(j, "stage"));
  if (!stage) throw Error(Location{"", 0, "stage"}, "is neither explore nor exploit");
  r.stage = *stage;
  r.hypothesis = hypothesis_from(j);
  r.content_hash = j.value("content_hash", "");
  r.candidate_family = j.value("candidate_family", "");
  if (j.contains("candidate") && j.at("candidate").is_string())
    r.candidate = j.at("candidate").get<std::string>();
  r.candidate_ms = maybe_number(j, "candidate_ms");
  r.best_ms = maybe_number(j, "best_ms");
  if (j.contains("objective")) {
    const auto objective = parse_objective(text(j, "objective"));
    if (!objective) throw Error(Location{"", 0, "objective"}, "is neither geomean nor mean");
    r.objective = *objective;
  }
  const auto decision = archive::parse_decision_kind(text(j, "decision"));
  if (!decision) throw Error(Location{"", 0, "decision"}, "is not a decision kind");
  r.decision = *decision;
  if (!field(j, "passed").is_boolean()) throw Error(Location{"", 0, "passed"}, "is not a boolean");
  r.passed = j.at("passed").get<bool>();
  r.failure = j.value("failure", "");
  return r;
}

std::vector<RoundRecord> round_records(const std::vector<archive::Decision>& decisions) {
  std::vector<RoundRecord> out;
  for (const archive::Decision& d : decisions)
    if (d.evidence.is_object() && d.evidence.contains("round_record"))
      out.push_back(round_record_from_json(d.evidence.at("round_record")));
  std::stable_sort(out.begin(), out.end(),
                   [](const RoundRecord& a, const RoundRecord& b) { return a.round < b.round; });
  return out;
}

}  // namespace kh::control
