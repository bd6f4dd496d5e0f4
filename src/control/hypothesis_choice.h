// Choosing the round's hypothesis: one regime, one direction, one technique family,
// from the per-regime diagnosis (profile/diagnosis_rules.h), the memory, the trajectory
// verdict, the stage and a person's pending directives.
//
// Order of precedence (docs/controller.md "Hypotheses"):
//   1. the oldest pending directive: a person's word beats every rule below;
//   2. options are every (regime, direction) of the diagnosis, plus a small fixed
//      catalogue of generic directions so that stage 1 can always reach 3 families;
//      options in families or directions the verdict excludes, or that memory says
//      failed (or were rejected) for that regime, are set aside and only used when
//      nothing else is left (then `exhausted` is true);
//   3. explore: a family this loop has not tried yet first (so stage 1 covers at least
//      3 families), then untried hypotheses, then the diagnosis score weighted by the
//      regime's cost share;
//      exploit: the families that promoted (best speedup first), then the score;
//   4. ties are broken by a hash of the seed and the option: the same inputs and seed
//      give the same choice.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "control/memory.h"
#include "control/round_record.h"
#include "control/steering.h"
#include "control/trajectory.h"
#include "profile/diagnosis_rules.h"
#include "profile/profile_session.h"

namespace kh::control {

// One regime's diagnosis, as the profile session produced it.
struct RegimeDiagnosis {
  std::string regime;
  double cost_share = 0;  // of the definition's total estimated cost
  profile::Diagnosis diagnosis;
};

// The regimes of a profile report, in its order.
[[nodiscard]] std::vector<RegimeDiagnosis> regime_diagnoses(const profile::ProfileReport& report);

struct ChoiceInput {
  std::vector<RegimeDiagnosis> diagnosis;
  Knowledge memory;  // recall(archive, definition)
  Verdict verdict;   // supervise(history) after the previous round
  Stage stage = Stage::explore;
  std::vector<RoundRecord> history;   // this loop's rounds, oldest first
  std::vector<Directive> directives;  // pending for this round (take_directives), oldest first
  std::uint64_t seed = 0;
};

struct Choice {
  agents::Hypothesis hypothesis;
  std::string source;      // "directive" | "diagnosis" | "catalogue"
  bool exhausted = false;  // every option was excluded or had failed; the least bad was taken
  std::string reason;      // one line for the decision log

  [[nodiscard]] nlohmann::ordered_json json() const;
};

// Never throws for want of evidence: with no diagnosis (no profile yet) the catalogue's
// generic directions aim at regime "all".
[[nodiscard]] Choice choose_hypothesis(const ChoiceInput& input);

// The families of the explore rounds of `history` (stage-1 coverage), by first use.
[[nodiscard]] std::vector<std::string> explored_families(const std::vector<RoundRecord>& history);

}  // namespace kh::control
