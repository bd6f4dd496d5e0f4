// Checks a recorded decision's evidence against the runs it cites. Every sweep in the
// evidence (an object with a run_id and per-workload status and latency) must say what
// that run's trace lines say, and a promotion's first paired speedup (the figure the
// loop's "speedup over start" multiplies) must be the geometric mean that the paired
// baseline's and the contender's sweeps give. Figures come from the trace lines, not
// the index columns, so a column edited after the decision is trace_problems()' to find.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "archive/index_rows.h"
#include "archive/sqlite_database.h"

namespace kh::archive {

// One sentence per disagreement, naming the decision (by id) and the run.
[[nodiscard]] std::vector<std::string> decision_problems(const Database& db, RowId decision_id,
                                                         const nlohmann::ordered_json& evidence);
// decision_problems() for every decision of one loop, oldest first.
[[nodiscard]] std::vector<std::string> loop_decision_problems(const Database& db, std::string_view loop_id);

}  // namespace kh::archive
