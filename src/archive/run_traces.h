// One run's trace rows as the index holds them, in evaluation order: what a reader that
// compares runs (the loop's sweeps) needs without knowing the tables.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "archive/index_rows.h"

namespace kh::archive {

struct RunTraceRow {
  std::string workload_uuid;
  std::string status;
  std::optional<double> latency_ms;
  std::string line;  // the trace's JSONL line, as sealed with the run
};

// The run's protocol ("official", "robust"); empty when there is no such run.
[[nodiscard]] std::string run_protocol(Archive& archive, RowId run_id);
struct RunTimes {
  std::string started_at;   // archive/utc_time.h
  std::string finished_at;  // empty when the run never finished
};
// Empty times when there is no such run.
[[nodiscard]] RunTimes run_times(Archive& archive, RowId run_id);
[[nodiscard]] std::vector<RunTraceRow> run_trace_rows(Archive& archive, RowId run_id);

}  // namespace kh::archive
