// Recomputes what a run's index rows say from what they were derived from, and names
// each row that disagrees. A trace row's figures (status, latencies, speedup, speed of
// light, names) come from its trace line, whose SHA-256 the row carries; each sample
// row's bytes hash to the hash it carries, and each trial's median of them is the
// trial median its trace line reports; the run's seal (run_seal.h) covers all of it.
//
// `archive verify --deep` runs this over every run; the loop runs it on every run it
// reads its figures from (control/step_runner.h), and reports on every trace they rank
// (report/report_loader.h). Each problem is one sentence naming the row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "archive/index_rows.h"
#include "archive/sqlite_database.h"

namespace kh::archive {

// A traces row as stored.
struct StoredTrace {
  RowId id = 0;
  std::optional<RowId> run_id;
  std::string content_hash, line;
  TraceFacts facts;  // the columns, not (yet) the line's
};

// The columns stored_trace() reads, in its order, for "SELECT <these> FROM traces ...".
inline constexpr const char* kStoredTraceColumns =
    "id, run_id, content_hash, line, definition, workload_uuid, solution, status, timestamp, latency_ms, "
    "reference_latency_ms, speedup, sol_floor_ms, sol_fraction";
[[nodiscard]] StoredTrace stored_trace(const Statement& s);

// Where the row disagrees with its line (or the line with its hash). Empty: it agrees.
[[nodiscard]] std::vector<std::string> trace_problems(const StoredTrace& t);

// The sample rows of a trace: each row's bytes against its hash, and the trial medians
// of the candidate's samples against the line's. Empty: they agree.
[[nodiscard]] std::vector<std::string> sample_problems(const Database& db, const StoredTrace& t);

// Every problem of a run: its traces, their samples, its seal. `sealed` is set to
// whether the run carries a seal (runs written before schema version 4 do not).
[[nodiscard]] std::vector<std::string> run_problems(const Database& db, RowId run_id, bool* sealed = nullptr);

}  // namespace kh::archive
