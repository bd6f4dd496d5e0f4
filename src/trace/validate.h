// Validation rules for each FlashInfer-Trace type. Each returns every problem found, as
// diagnostics, instead of stopping at the first. `where` names the file and line, and its
// field (if any) prefixes the field paths reported.
#pragma once

#include <vector>

#include "trace/definition.h"
#include "trace/diagnostic.h"
#include "trace/solution.h"
#include "trace/trace.h"
#include "trace/workload.h"

namespace kh {

// Axes declared and positive, dtypes, shapes, input/output names disjoint, constraints
// parse and name known things, reference present.
[[nodiscard]] std::vector<Diagnostic> validate_definition(const Definition& d, const Location& where = {});

// Language and binding known, entry_point "file::function" naming a source, source paths
// relative without "..", no duplicates.
[[nodiscard]] std::vector<Diagnostic> validate_solution(const Solution& s, const Location& where = {});

// uuid, axis values, input descriptors; against `def` (when not null): every var axis has a
// value, no unknown axes or inputs, scalars only for scalar specs, constraints hold.
// `where.field` should be the workload's own path (e.g. "workload" inside a trace line).
[[nodiscard]] std::vector<Diagnostic> validate_workload(const Workload& w, const Definition* def,
                                                        const Location& where = {});

// The workload (at field "workload") plus the evaluation: status and blocks agree.
[[nodiscard]] std::vector<Diagnostic> validate_trace(const Trace& t, const Definition* def,
                                                     const Location& where = {});

}  // namespace kh
