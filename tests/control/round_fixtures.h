// Synthetic rounds for the supervision, memory and choice tests.
#pragma once

#include <optional>
#include <string>

#include "control/round_record.h"

namespace kh::control::test {

inline RoundRecord make_round(std::int64_t round, std::string family, std::string direction,
                              std::optional<double> candidate_ms, std::optional<double> best_ms,
                              archive::DecisionKind decision = archive::DecisionKind::archive_only,
                              bool passed = true, std::string hash = "") {
  RoundRecord r;
  r.loop_id = "loop-1";
  r.round = round;
  r.stage = Stage::explore;
  r.hypothesis = {"large", std::move(direction), std::move(family), "because", ""};
  r.content_hash = hash.empty() ? "hash-" + std::to_string(round) : std::move(hash);
  r.candidate_ms = candidate_ms;
  r.best_ms = best_ms;
  r.decision = decision;
  r.passed = passed;
  if (!passed) r.failure = "INCORRECT_NUMERICAL on 2 of 5 workloads";
  return r;
}

// A round whose candidate beat the best (promoted) or did not (archived), with
// latencies in ms.
inline RoundRecord promoted(std::int64_t round, double best, double candidate,
                            std::string family = "tiling") {
  return make_round(round, std::move(family), "dir " + std::to_string(round), candidate, best,
                    archive::DecisionKind::promote);
}
inline RoundRecord archived(std::int64_t round, double best, double candidate,
                            std::string family = "tiling") {
  return make_round(round, std::move(family), "dir " + std::to_string(round), candidate, best,
                    archive::DecisionKind::archive_only);
}

}  // namespace kh::control::test
