#include "control/candidate_outcome.h"

namespace kh::control {

namespace {

nlohmann::ordered_json number_or_null(const std::optional<double>& x) {
  return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json CandidateOutcome::json() const {
  nlohmann::ordered_json j = {
      {"content_id", content_id},   {"name", candidate.solution.name},    {"agent", agent},  {"stage", stage},
      {"family", candidate.family}, {"hypothesis", candidate.hypothesis}, {"parent", parent}};
  if (!skipped.empty()) {
    j["skipped"] = skipped;
    return j;
  }
  j["gate"] = gate ? gate->json() : nlohmann::ordered_json(nullptr);
  j["gate_speedup"] = number_or_null(gate_speedup);
  j["survived_gate"] = survived_gate;
  j["full"] = full ? full->json() : nlohmann::ordered_json(nullptr);
  j["full_speedup"] = number_or_null(full_speedup);
  return j;
}

}  // namespace kh::control
