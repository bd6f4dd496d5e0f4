// One candidate of a round and what happened to it: skipped as a repeat, stopped at the
// quick gate (the regimes' representatives), or validated on every workload.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "archive/controller_log.h"
#include "control/round_record.h"
#include "control/sweep.h"

namespace kh::control {

struct CandidateOutcome {
  agents::Candidate candidate;
  std::string agent;
  std::string stage;  // explore | exploit
  std::string text;   // the JSON archived
  std::string content_id;
  std::string parent;   // content id of the solution it was derived from
  std::string skipped;  // why it was not evaluated (a repeat); empty when it was
  std::optional<Sweep> gate;
  std::optional<Sweep> gate_baseline;  // the retained best's sweep the gate was compared with
  std::optional<double> gate_speedup;  // over the paired baseline, at the representatives
  bool survived_gate = false;
  std::optional<Sweep> full;
  std::optional<Sweep> full_baseline;  // the retained best's sweep the full sweep was compared with
  std::optional<double> full_speedup;  // over the paired baseline (repeat 1), every workload

  [[nodiscard]] bool evaluated() const noexcept { return skipped.empty(); }
  [[nodiscard]] nlohmann::ordered_json json() const;
};

// What a finished round leaves for supervision and memory (round_record.h), from its
// candidate: the contender, else the first evaluated one, each weighed against the retained
// best's sweep it was compared with.
[[nodiscard]] RoundRecord round_record_of(const std::string& loop_id, std::int64_t round,
                                          const agents::Hypothesis& hypothesis,
                                          const std::vector<CandidateOutcome>& outcomes,
                                          std::optional<std::size_t> contender, archive::DecisionKind kind,
                                          const std::string& reason, Objective objective);

}  // namespace kh::control
