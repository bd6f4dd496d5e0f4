// The loop's own record as `kharness report` lists it: one row a round of every loop on the
// definition, read from the round's decision evidence (its decision, its candidates by status,
// the round's candidate and the family it claimed, its speedup over the retained best, the
// reason, the wall time). Read without trusting the evidence's shape (report/json_fields.h):
// an older or damaged record still reports, with what it has.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "report/archive_rows.h"
#include "report/decision_budget.h"

namespace kh::report {

struct RoundRow {
  std::string loop_id;
  std::int64_t round = 0;
  std::string decision;           // promote, archive_only or reject_restore
  std::string candidate;          // the round's candidate (the contender, else the first evaluated); "" none
  std::string family;             // the family it claimed, else the one the controller asked for
  std::optional<double> speedup;  // the retained best's latency over the candidate's, in the loop's objective
  std::string objective;          // "geomean" or "mean": how that speedup weighs the workloads
  CandidateStatuses candidates;
  std::string reason;
  double seconds = 0;
};

[[nodiscard]] RoundRow round_row(const DecisionEntry& decision);

// "1.134x (mean latency)": the round's speedup as its objective weighed it; "–" when it has none.
[[nodiscard]] std::string round_speedup_text(const RoundRow& row);

// "3 (2 passed, 1 reward hack)": a round's candidates, those that did not pass by why.
[[nodiscard]] std::string candidates_text(const CandidateStatuses& s);

}  // namespace kh::report
