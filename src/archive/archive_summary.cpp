#include "archive/archive_summary.h"

#include <array>

namespace kh::archive {

ArchiveSummary summarize_archive(Archive& archive, std::size_t max_runs) {
  Database& db = archive.db();
  ArchiveSummary out;
  out.schema_version = static_cast<int>(db.query_int("PRAGMA user_version"));
  constexpr std::array<const char*, 10> kTables = {"definitions", "workloads", "solutions", "builds",
                                                   "runs",        "traces",    "samples",   "blobs",
                                                   "decisions",   "imports"};
  for (const char* table : kTables)
    out.counts.emplace_back(table, db.query_int(std::string("SELECT count(*) FROM ") + table));
  Statement s = db.prepare(
      "SELECT r.id, r.origin, r.rerun_of, d.name, s.name, s.content_id, r.backend, r.protocol, r.status, "
      "r.started_at, (SELECT count(*) FROM traces t WHERE t.run_id = r.id), "
      "(SELECT count(*) FROM traces t WHERE t.run_id = r.id AND t.status = 'PASSED'), "
      "(SELECT avg(t.speedup) FROM traces t WHERE t.run_id = r.id AND t.status = 'PASSED' AND t.speedup > 0) "
      "FROM runs r JOIN definitions d ON d.id = r.definition_id JOIN solutions s ON s.id = r.solution_id "
      "ORDER BY r.id DESC LIMIT ?");
  s.bind(1, static_cast<std::int64_t>(max_runs));
  while (s.step()) {
    RunSummary r;
    r.id = s.column_int(0);
    r.origin = s.column_text(1);
    r.rerun_of = s.column_optional_int(2);
    r.definition = s.column_text(3);
    r.solution = s.column_text(4);
    r.solution_content_id = s.column_text(5);
    r.backend = s.column_text(6);
    r.protocol = s.column_text(7);
    r.status = s.column_text(8);
    r.started_at = s.column_text(9);
    r.traces = s.column_int(10);
    r.passed = s.column_int(11);
    r.mean_speedup = s.column_optional_double(12);
    out.runs.push_back(std::move(r));
  }
  return out;
}

}  // namespace kh::archive
