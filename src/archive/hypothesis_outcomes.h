// The controller's memory as rows (table hypothesis_outcomes, schema versions 3 and 5): each
// hypothesis a loop tried on a definition, for one regime, and how it ended. Rows are
// per definition, not per loop, so every loop of a definition reads what the others
// learnt. control/memory.h gives them meaning; this file only stores them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "archive/archive.h"
#include "archive/index_rows.h"

namespace kh::archive {

struct HypothesisOutcome {
  std::string definition;
  std::string regime;
  std::string family;  // the direction's, as the controller asked
  std::string direction;
  std::string rationale;
  std::string directive;                // the person's note that led to it, if any
  std::string outcome;                  // promoted | archived | rejected | failed
  std::string reason;                   // why, one line
  std::optional<double> speedup_delta;  // speedup over the retained best, minus 1
  std::string loop_id;
  std::int64_t round = 0;
  std::string content_hash;      // normalised content hash of the candidate; empty when none
  std::string recorded_at;       // empty: now
  std::string candidate_family;  // the family the candidate claimed; empty: none (schema version 5)
};

// Inserts, or replaces the row of the same (definition, loop_id, round, content_hash), so a resumed
// loop that records its round again adds nothing. Throws kh::Error for an unknown outcome.
RowId record_hypothesis_outcome(Archive& archive, const HypothesisOutcome& row);

// The definition's rows, oldest first; only `regime`'s when it is not empty.
[[nodiscard]] std::vector<HypothesisOutcome> load_hypothesis_outcomes(Archive& archive,
                                                                      std::string_view definition,
                                                                      std::string_view regime = {});

}  // namespace kh::archive
