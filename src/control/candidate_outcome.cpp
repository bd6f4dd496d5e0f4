#include "control/candidate_outcome.h"

#include <fmt/format.h>

#include "control/normalised_hash.h"

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
  j["gate_baseline_run"] = gate_baseline ? nlohmann::ordered_json(gate_baseline->run_id) : nullptr;
  j["gate_speedup"] = number_or_null(gate_speedup);
  j["survived_gate"] = survived_gate;
  j["full"] = full ? full->json() : nlohmann::ordered_json(nullptr);
  j["full_baseline_run"] = full_baseline ? nlohmann::ordered_json(full_baseline->run_id) : nullptr;
  j["full_speedup"] = number_or_null(full_speedup);
  return j;
}

RoundRecord round_record_of(const std::string& loop_id, std::int64_t round,
                            const agents::Hypothesis& hypothesis,
                            const std::vector<CandidateOutcome>& outcomes,
                            std::optional<std::size_t> contender, archive::DecisionKind kind,
                            const std::string& reason, Objective objective) {
  RoundRecord rr;
  rr.objective = objective;
  rr.loop_id = loop_id;
  rr.round = round;
  rr.stage = Stage::explore;
  rr.hypothesis = hypothesis;
  rr.decision = kind;
  std::optional<std::size_t> pick = contender;
  for (std::size_t i = 0; !pick && i < outcomes.size(); ++i) {
    if (outcomes[i].evaluated()) pick = i;
  }
  if (!pick) {
    rr.failure = "no candidate was evaluated";
    return rr;
  }
  const CandidateOutcome& c = outcomes[*pick];
  rr.content_hash = normalised_content_hash(c.candidate.solution);
  rr.candidate_family = c.candidate.family;
  rr.candidate = c.content_id;
  const Sweep& measured = c.full ? *c.full : *c.gate;
  const Sweep& best = c.full ? *c.full_baseline : *c.gate_baseline;
  rr.passed = measured.all_passed();
  const std::optional<PairedLatency> paired = paired_latency(best, measured, objective);
  if (rr.passed && paired) {
    rr.best_ms = paired->baseline_ms;
    rr.candidate_ms = paired->candidate_ms;
  }
  if (!rr.passed) rr.failure = fmt::format("{}: {}", c.candidate.solution.name, measured.worst_status());
  if (kind == archive::DecisionKind::reject_restore) rr.failure = reason;
  return rr;
}

}  // namespace kh::control
