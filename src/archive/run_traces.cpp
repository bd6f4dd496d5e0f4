#include "archive/run_traces.h"

#include "archive/sqlite_statement.h"

namespace kh::archive {

RunHeader run_header(Archive& archive, RowId run_id) {
  Statement s = archive.db().prepare("SELECT protocol, started_at, finished_at FROM runs WHERE id = ?");
  s.bind(1, run_id);
  if (!s.step()) return {};
  return {s.column_text(0), s.column_text(1), s.column_text(2)};
}

std::vector<RunTraceRow> run_trace_rows(Archive& archive, RowId run_id) {
  Statement s = archive.db().prepare(
      "SELECT workload_uuid, status, latency_ms, line FROM traces WHERE run_id = ? ORDER BY id");
  s.bind(1, run_id);
  std::vector<RunTraceRow> rows;
  while (s.step()) {
    rows.push_back({s.column_text(0), s.column_text(1), s.column_optional_double(2), s.column_text(3)});
  }
  return rows;
}

}  // namespace kh::archive
