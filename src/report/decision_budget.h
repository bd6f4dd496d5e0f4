// What one round of a loop spent, read from its decision's evidence: candidates (those
// evaluated and the answers refused before evaluation, as the candidate budget counts
// them), the tokens its agents reported, its wall seconds; and its candidates by status.
// The loop (control/loop_state.h) and the ablation report count with the same function.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

namespace kh::report {

struct DecisionBudget {
  std::int64_t candidates = 0;
  std::int64_t tokens = 0;  // input + output, where the agents reported them
  double seconds = 0;
};

// Candidates of a round by the status their first sweep ended with.
struct CandidateStatuses {
  std::int64_t passed = 0;
  std::int64_t incorrect = 0;      // INCORRECT_NUMERICAL, INCORRECT_SHAPE, INCORRECT_DTYPE
  std::int64_t reward_hack = 0;    // REWARD_HACK
  std::int64_t compile_error = 0;  // COMPILE_ERROR
  std::int64_t crashed = 0;        // RUNTIME_ERROR, TIMEOUT and anything else
  std::int64_t refused = 0;        // answers refused before evaluation (malformed, unavailable agent)

  CandidateStatuses& operator+=(const CandidateStatuses& o);
  [[nodiscard]] std::int64_t total() const noexcept {
    return passed + incorrect + reward_hack + compile_error + crashed + refused;
  }
};

[[nodiscard]] DecisionBudget decision_budget(const nlohmann::ordered_json& evidence);
[[nodiscard]] CandidateStatuses candidate_statuses(const nlohmann::ordered_json& evidence);
// {"passed": n, ..., "refused": n, "total": n}, as reports write it.
[[nodiscard]] nlohmann::ordered_json candidate_statuses_json(const CandidateStatuses& s);

}  // namespace kh::report
