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

struct RunHeader {
  std::string protocol;    // "official", "robust"
  std::string started_at;  // archive/utc_time.h
  std::string finished_at;
};
// All empty when there is no such run.
[[nodiscard]] RunHeader run_header(Archive& archive, RowId run_id);
[[nodiscard]] std::vector<RunTraceRow> run_trace_rows(Archive& archive, RowId run_id);

}  // namespace kh::archive
