// One candidate of a round and what happened to it: skipped as a repeat, stopped at the
// quick gate (the regimes' representatives), or validated on every workload.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "agents/agent.h"
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
  std::optional<double> gate_speedup;  // over the paired baseline, at the representatives
  bool survived_gate = false;
  std::optional<Sweep> full;
  std::optional<double> full_speedup;  // over the paired baseline (repeat 1), every workload

  [[nodiscard]] bool evaluated() const noexcept { return skipped.empty(); }
  [[nodiscard]] nlohmann::ordered_json json() const;
};

}  // namespace kh::control
