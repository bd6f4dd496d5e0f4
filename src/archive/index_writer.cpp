#include "archive/index_writer.h"

#include <bit>
#include <cstring>
#include <vector>

#include "archive/canonical_json.h"
#include "archive/run_seal.h"
#include "archive/utc_time.h"
#include "error/error.h"

namespace kh::archive {
namespace {

void bind_source(Statement& s, int first, const SourcePlace& p) {
  s.bind(first, p.path).bind(first + 1, p.line).bind(first + 2, p.import_id);
}

// Samples as little-endian float64, the layout the x86 and ARM hosts use natively.
std::vector<std::byte> pack_samples(std::span<const double> ms) {
  static_assert(std::endian::native == std::endian::little, "samples are stored little-endian");
  std::vector<std::byte> bytes(ms.size() * sizeof(double));
  if (!ms.empty()) std::memcpy(bytes.data(), ms.data(), bytes.size());
  return bytes;
}

}  // namespace

IndexWriter::IndexWriter(Database& db)
    : db_(db),
      blob_(db.prepare("INSERT OR IGNORE INTO blobs(sha256, size, kind, created_at) VALUES (?, ?, ?, ?)")),
      definition_(db.prepare("INSERT OR IGNORE INTO definitions(name, op_type, content_hash, json, "
                             "source_path, import_id, created_at) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?)")),
      definition_id_(db.prepare("SELECT id FROM definitions WHERE content_hash = ?")),
      workload_(db.prepare(
          "INSERT OR IGNORE INTO workloads(definition, uuid, axes_json, content_hash, line, source_path, "
          "source_line, import_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")),
      workload_id_(db.prepare("SELECT id FROM workloads WHERE definition = ? AND content_hash = ?")),
      workload_file_(
          db.prepare("INSERT OR IGNORE INTO workload_files(workload_id, path, blob) VALUES (?, ?, ?)")),
      solution_(db.prepare(
          "INSERT OR IGNORE INTO solutions(content_id, name, definition, author, language, role, json_blob, "
          "parent_id, agent, hypothesis, technique_family, prompt_blob, response_blob, source_path, "
          "import_id, "
          "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")),
      solution_id_(db.prepare("SELECT id FROM solutions WHERE content_id = ?")),
      environment_(db.prepare("INSERT OR IGNORE INTO environments(hash, hardware, json) VALUES (?, ?, ?)")),
      environment_id_(db.prepare("SELECT id FROM environments WHERE hash = ?")),
      build_(db.prepare(
          "INSERT INTO builds(solution_id, key, status, message, log_blob, binary_blob, seconds, cache_hit, "
          "compiler, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")),
      run_(db.prepare(
          "INSERT INTO runs(origin, rerun_of, solution_id, reference_id, definition_id, build_id, "
          "reference_build_id, environment_id, backend, protocol, protocol_json, options_json, checker, "
          "tolerance_json, speed_of_light_json, peaks_json, command_line_json, started_at, finished_at, "
          "status, "
          "trace_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")),
      run_workload_(db.prepare("INSERT INTO run_workloads(run_id, position, workload_id) VALUES (?, ?, ?)")),
      trace_(db.prepare(
          "INSERT OR IGNORE INTO traces(content_hash, run_id, import_id, definition, workload_uuid, "
          "solution, "
          "solution_id, environment_id, status, latency_ms, reference_latency_ms, speedup, sol_floor_ms, "
          "sol_fraction, timestamp, line, sample_sets, source_path, source_line, created_at) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")),
      samples_(db.prepare(
          "INSERT INTO samples(trace_id, role, trial, count, data, sha256) VALUES (?, ?, ?, ?, ?, ?)")) {}

bool IndexWriter::insert(Statement& s) {
  s.run();
  last_added_ = db_.changes() > 0;
  if (last_added_) ++rows_added_;
  return last_added_;
}

RowId IndexWriter::id_after_insert(Statement& insert_stmt, Statement& select_stmt, std::string_view key) {
  if (insert(insert_stmt)) return db_.last_insert_rowid();
  const bool found = select_stmt.step();
  const RowId id = found ? select_stmt.column_int(0) : 0;
  select_stmt.reset();
  if (!found)
    throw Error(Location{db_.file().string(), 0, ""}, "row vanished after insert: " + std::string(key));
  return id;
}

void IndexWriter::add_blob(std::string_view sha256, std::int64_t size, std::string_view kind) {
  blob_.bind(1, sha256).bind(2, size).bind(3, kind).bind(4, utc_now());
  insert(blob_);
}

RowId IndexWriter::add_definition(const DefinitionRow& r) {
  definition_.bind(1, r.name).bind(2, r.op_type).bind(3, r.content_hash).bind(4, r.json);
  definition_.bind(5, r.source.path).bind(6, r.source.import_id).bind(7, utc_now());
  definition_id_.bind(1, r.content_hash);
  return id_after_insert(definition_, definition_id_, r.name);
}

RowId IndexWriter::add_workload(const WorkloadRow& r) {
  workload_.bind(1, r.definition)
      .bind(2, r.uuid)
      .bind(3, r.axes_json)
      .bind(4, r.content_hash)
      .bind(5, r.line);
  bind_source(workload_, 6, r.source);
  workload_.bind(9, utc_now());
  workload_id_.bind(1, r.definition).bind(2, r.content_hash);
  return id_after_insert(workload_, workload_id_, r.uuid);
}

void IndexWriter::add_workload_file(RowId workload_id, std::string_view path, std::string_view blob) {
  workload_file_.bind(1, workload_id).bind(2, path).bind(3, blob);
  insert(workload_file_);
}

RowId IndexWriter::add_solution(const SolutionRow& r) {
  solution_.bind(1, r.content_id).bind(2, r.name).bind(3, r.definition).bind(4, r.author).bind(5, r.language);
  solution_.bind(6, r.role).bind(7, r.json_blob).bind(8, r.parent_id).bind(9, r.agent).bind(10, r.hypothesis);
  solution_.bind(11, r.technique_family).bind(12, r.prompt_blob).bind(13, r.response_blob);
  solution_.bind(14, r.source.path).bind(15, r.source.import_id).bind(16, utc_now());
  solution_id_.bind(1, r.content_id);
  return id_after_insert(solution_, solution_id_, r.name);
}

std::optional<RowId> IndexWriter::find_solution(std::string_view content_id) {
  solution_id_.bind(1, content_id);
  std::optional<RowId> id;
  if (solution_id_.step()) id = solution_id_.column_int(0);
  solution_id_.reset();
  return id;
}

RowId IndexWriter::add_environment(std::string_view json, std::string_view hardware) {
  const std::string hash = canonical_hash(json);
  environment_.bind(1, hash).bind(2, hardware).bind(3, json);
  environment_id_.bind(1, hash);
  return id_after_insert(environment_, environment_id_, hardware);
}

RowId IndexWriter::add_build(const BuildRow& r) {
  build_.bind(1, r.solution_id).bind(2, r.key).bind(3, r.status).bind(4, r.message).bind(5, r.log_blob);
  build_.bind(6, r.binary_blob).bind(7, r.seconds).bind(8, static_cast<std::int64_t>(r.cache_hit));
  build_.bind(9, r.compiler).bind(10, utc_now());
  insert(build_);
  return db_.last_insert_rowid();
}

RowId IndexWriter::add_run(const RunRow& r) {
  run_.bind(1, r.origin).bind(2, r.rerun_of).bind(3, r.solution_id).bind(4, r.reference_id);
  run_.bind(5, r.definition_id).bind(6, r.build_id).bind(7, r.reference_build_id).bind(8, r.environment_id);
  run_.bind(9, r.backend).bind(10, r.protocol).bind(11, r.protocol_json).bind(12, r.options_json);
  run_.bind(13, r.checker).bind(14, r.tolerance_json).bind(15, r.speed_of_light_json).bind(16, r.peaks_json);
  run_.bind(17, r.command_line_json).bind(18, r.started_at).bind(19, r.finished_at).bind(20, r.status);
  run_.bind(21, r.trace_count);
  insert(run_);
  return db_.last_insert_rowid();
}

void IndexWriter::add_run_workload(RowId run_id, std::int64_t position, RowId workload_id) {
  run_workload_.bind(1, run_id).bind(2, position).bind(3, workload_id);
  insert(run_workload_);
}

std::optional<RowId> IndexWriter::add_trace(const TraceRow& r) {
  const TraceFacts& f = r.facts;
  trace_.bind(1, r.content_hash).bind(2, r.run_id).bind(3, r.source.import_id).bind(4, f.definition);
  trace_.bind(5, f.workload_uuid).bind(6, f.solution).bind(7, r.solution_id).bind(8, r.environment_id);
  trace_.bind(9, f.status).bind(10, f.latency_ms).bind(11, f.reference_latency_ms).bind(12, f.speedup);
  trace_.bind(13, f.sol_floor_ms).bind(14, f.sol_fraction).bind(15, f.timestamp).bind(16, r.line);
  trace_.bind(17, r.sample_sets).bind(18, r.source.path).bind(19, r.source.line).bind(20, utc_now());
  if (!insert(trace_)) return std::nullopt;
  return db_.last_insert_rowid();
}

void IndexWriter::add_samples(RowId trace_id, std::string_view role, std::int64_t trial,
                              std::span<const double> ms) {
  samples_.bind(1, trace_id).bind(2, role).bind(3, trial).bind(4, static_cast<std::int64_t>(ms.size()));
  const std::vector<std::byte> bytes = pack_samples(ms);
  samples_.bind_blob(5, bytes).bind(6, samples_sha256(bytes));
  insert(samples_);
}

}  // namespace kh::archive
