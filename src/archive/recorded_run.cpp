#include "archive/recorded_run.h"

#include "archive/write_transaction.h"
#include "error/error.h"

namespace kh::archive {
namespace {

nlohmann::ordered_json parse_column(const Statement& s, int column, const char* field) {
  const std::optional<std::string> text = s.column_optional_text(column);
  if (!text) return nullptr;
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(*text, nullptr, false);
  if (j.is_discarded()) throw Error(Location{"", 0, std::string("runs.") + field}, "not JSON");
  return j;
}

void load_header(Archive& archive, RecordedRun& run) {
  Statement s = archive.db().prepare(
      "SELECT r.backend, r.protocol, r.checker, r.started_at, d.json, c.json_blob, c.role, ref.json_blob, "
      "r.options_json, r.tolerance_json, r.speed_of_light_json FROM runs r "
      "JOIN definitions d ON d.id = r.definition_id JOIN solutions c ON c.id = r.solution_id "
      "LEFT JOIN solutions ref ON ref.id = r.reference_id WHERE r.id = ?");
  s.bind(1, run.id);
  if (!s.step()) {
    throw Error(Location{archive.dir().string(), 0, "run"},
                "no run " + std::to_string(run.id) + " in the archive");
  }
  run.backend = s.column_text(0);
  run.protocol = s.column_text(1);
  run.checker = s.column_text(2);
  run.started_at = s.column_text(3);
  run.definition_json = s.column_text(4);
  run.candidate_json = archive.blobs().read(s.column_text(5));
  run.candidate_role = s.column_text(6);
  if (const auto reference = s.column_optional_text(7)) run.reference_json = archive.blobs().read(*reference);
  run.options = parse_column(s, 8, "options_json");
  run.tolerance = parse_column(s, 9, "tolerance_json");
  run.speed_of_light = parse_column(s, 10, "speed_of_light_json");
}

void load_workloads(Archive& archive, RecordedRun& run) {
  Statement lines = archive.db().prepare(
      "SELECT w.line FROM run_workloads rw JOIN workloads w ON w.id = rw.workload_id WHERE rw.run_id = ? "
      "ORDER BY rw.position");
  lines.bind(1, run.id);
  while (lines.step()) run.workload_lines.push_back(lines.column_text(0));
  Statement files = archive.db().prepare(
      "SELECT DISTINCT f.path, f.blob FROM run_workloads rw JOIN workload_files f ON f.workload_id = "
      "rw.workload_id "
      "WHERE rw.run_id = ? ORDER BY f.path");
  files.bind(1, run.id);
  while (files.step()) run.input_files.emplace_back(files.column_text(0), files.column_text(1));
}

void load_traces(Archive& archive, RecordedRun& run) {
  Statement s = archive.db().prepare(
      "SELECT workload_uuid, status, latency_ms, reference_latency_ms, speedup, sol_floor_ms, sol_fraction, "
      "definition, solution, timestamp FROM traces WHERE run_id = ? ORDER BY id");
  s.bind(1, run.id);
  while (s.step()) {
    TraceFacts f;
    f.workload_uuid = s.column_text(0);
    f.status = s.column_text(1);
    f.latency_ms = s.column_optional_double(2);
    f.reference_latency_ms = s.column_optional_double(3);
    f.speedup = s.column_optional_double(4);
    f.sol_floor_ms = s.column_optional_double(5);
    f.sol_fraction = s.column_optional_double(6);
    f.definition = s.column_text(7);
    f.solution = s.column_text(8);
    f.timestamp = s.column_text(9);
    run.traces.push_back(std::move(f));
  }
}

}  // namespace

RecordedRun load_run(Archive& archive, RowId run_id) {
  RecordedRun run;
  run.id = run_id;
  // One read transaction: the run and its traces as of one moment.
  archive.db().exec("BEGIN");
  try {
    load_header(archive, run);
    load_workloads(archive, run);
    load_traces(archive, run);
  } catch (...) {
    rollback_if_open(archive.db());
    throw;
  }
  archive.db().exec("COMMIT");
  return run;
}

}  // namespace kh::archive
