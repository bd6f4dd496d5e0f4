// One round of the loop: baseline -> profile -> diagnose -> generate -> evaluate ->
// archive, ending in exactly one recorded decision (docs/controller.md).
//
//   baseline   the retained best on every workload (paired repeat 1)
//   diagnose   regimes and the rule table over that sweep (round_diagnosis.h)
//   hypothesis one per round (hypothesis_choice.h), after supervision of the history
//   explore    an agent proposes; 3-8 kept across >= 3 families (stage_bounds.h); each
//              is gated on the representatives; survivors (correct there and faster
//              than the best) get every workload
//   exploit    the same agent proposes 1-3 from the best explore survivor; same gate
//   decide     the fastest survivor faster than the noise floor is the contender; it is
//              promoted only under the promotion rule (promotion.h): paired repeat 2 of
//              both, and both again under the other protocol in fresh workers.
//              promote | reject_restore (a contender failed the rule; the best stays) |
//              archive_only (no contender: the candidates are kept as evidence)
#pragma once

#include <cstdint>

#include "archive/archive.h"
#include "archive/controller_log.h"
#include "control/loop_config.h"
#include "control/loop_state.h"
#include "control/step_runner.h"
#include "profile/shape_regimes.h"

namespace kh::control {

struct RoundOutcome {
  archive::Decision decision;
  std::size_t evaluated = 0;         // candidates evaluated (gated) in the round
  std::size_t rejected_answers = 0;  // answers refused before evaluation (budget)
  std::vector<Solution> candidates;  // those evaluated, for the agents' history
  std::vector<std::string> candidate_ids;
  std::int64_t tokens = 0;  // input + output tokens the agents reported
  double seconds = 0;
};

// Runs round `round` and records its decision. `budget` caps the candidates evaluated.
RoundOutcome run_round(archive::Archive& archive, const LoopConfig& config, const LoopState& state,
                       StepRunner& steps, const profile::RegimePlan& plan, std::int64_t round,
                       std::size_t budget);

}  // namespace kh::control
