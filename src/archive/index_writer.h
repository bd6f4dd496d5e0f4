// Inserts rows into the index with statements prepared once. Callers run these inside
// a write transaction (write_transaction.h); nothing here begins or commits one.
//
// Content-keyed tables (blobs, definitions, workloads, solutions, environments,
// traces) use INSERT OR IGNORE: writing what is already there is a no-op that returns
// the existing row, which is what makes imports idempotent and lets many processes
// record the same definition at once.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "archive/index_rows.h"
#include "archive/sqlite_database.h"

namespace kh::archive {

class IndexWriter {
 public:
  explicit IndexWriter(Database& db);

  void add_blob(std::string_view sha256, std::int64_t size, std::string_view kind);
  RowId add_definition(const DefinitionRow& row);
  RowId add_workload(const WorkloadRow& row);
  void add_workload_file(RowId workload_id, std::string_view path, std::string_view blob);
  RowId add_solution(const SolutionRow& row);
  [[nodiscard]] std::optional<RowId> find_solution(std::string_view content_id);
  RowId add_environment(std::string_view json, std::string_view hardware);
  RowId add_build(const BuildRow& row);
  RowId add_run(const RunRow& row);
  void add_run_workload(RowId run_id, std::int64_t position, RowId workload_id);
  // The new trace's id, or nullopt when a trace with the same line was already there.
  std::optional<RowId> add_trace(const TraceRow& row);
  void add_samples(RowId trace_id, std::string_view role, std::int64_t trial, std::span<const double> ms);

  // Rows added by this writer since it was made (not counting no-op inserts).
  [[nodiscard]] std::int64_t rows_added() const noexcept { return rows_added_; }
  // Whether the last add_* call added a row (false: it was already there).
  [[nodiscard]] bool last_added() const noexcept { return last_added_; }

 private:
  // Runs an INSERT OR IGNORE; true when it added a row.
  bool insert(Statement& s);
  RowId id_after_insert(Statement& insert_stmt, Statement& select_stmt, std::string_view key);

  Database& db_;
  Statement blob_, definition_, definition_id_, workload_, workload_id_, workload_file_;
  Statement solution_, solution_id_, environment_, environment_id_;
  Statement build_, run_, run_workload_, trace_, samples_;
  std::int64_t rows_added_ = 0;
  bool last_added_ = false;
};

}  // namespace kh::archive
