#include "report/archive_reader.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <thread>

#include "archive/archive.h"
#include "archive/blob_store.h"
#include "archive/run_check.h"
#include "archive/run_seal.h"
#include "archive/schema.h"
#include "error/error.h"

namespace kh::report {
namespace fs = std::filesystem;
using archive::Statement;

namespace {

// The oldest schema whose tables the reports' queries (here and in the dashboard) read unchanged:
// version 5 added only the memory's candidate_family, which no report reads; version 4 brought the
// run seals the tamper check reads. So a report reads a version-4 archive as it is, in its
// read-only open, without a writing command migrating it first. Raise this with a schema bump
// that changes anything the reports read.
constexpr std::int64_t kOldestReadSchema = 4;

constexpr const char* kTraceColumns =
    "id, run_id, solution_id, solution, workload_uuid, status, latency_ms, reference_latency_ms, speedup, "
    "sol_fraction, sol_floor_ms, timestamp";

constexpr const char* kSolutionColumns =
    "id, content_id, name, definition, author, language, role, parent_id, agent, hypothesis, "
    "technique_family, prompt_blob, response_blob, json_blob, created_at";

TraceEntry trace_at(const Statement& s) {
  TraceEntry t;
  t.id = s.column_int(0);
  t.run_id = s.column_optional_int(1);
  t.solution_id = s.column_optional_int(2);
  t.solution = s.column_text(3);
  t.workload_uuid = s.column_text(4);
  t.status = s.column_text(5);
  t.latency_ms = s.column_optional_double(6);
  t.reference_latency_ms = s.column_optional_double(7);
  t.speedup = s.column_optional_double(8);
  t.sol_fraction = s.column_optional_double(9);
  t.sol_floor_ms = s.column_optional_double(10);
  t.timestamp = s.column_text(11);
  return t;
}

SolutionEntry solution_at(const Statement& s) {
  SolutionEntry e;
  e.id = s.column_int(0);
  e.content_id = s.column_text(1);
  e.name = s.column_text(2);
  e.definition = s.column_text(3);
  e.author = s.column_text(4);
  e.language = s.column_text(5);
  e.role = s.column_text(6);
  e.parent_id = s.column_optional_int(7);
  e.agent = s.column_optional_text(8);
  e.hypothesis = s.column_optional_text(9);
  e.technique_family = s.column_optional_text(10);
  e.prompt_blob = s.column_optional_text(11);
  e.response_blob = s.column_optional_text(12);
  e.json_blob = s.column_text(13);
  e.created_at = s.column_text(14);
  return e;
}

std::vector<SolutionEntry> solutions_of(Statement& s) {
  std::vector<SolutionEntry> out;
  while (s.step()) out.push_back(solution_at(s));
  return out;
}

DecisionEntry decision_at(const Statement& s) {
  DecisionEntry d;
  d.id = s.column_int(0);
  d.loop_id = s.column_text(1);
  d.round = s.column_int(2);
  d.kind = s.column_text(3);
  d.solution_id = s.column_optional_int(4);
  d.baseline_id = s.column_optional_int(5);
  d.evidence_json = s.column_text(6);
  d.decided_at = s.column_text(7);
  return d;
}

std::int64_t as_int(std::size_t n) { return static_cast<std::int64_t>(n); }

}  // namespace

namespace {

// Recomputes a batch of rows on every core: parsing lines is what a report on 100 000
// traces spends its time on.
void check_batch(std::vector<archive::StoredTrace>& batch, std::vector<std::string>& out) {
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  std::vector<std::vector<std::string>> found(threads);
  {
    std::vector<std::jthread> workers;
    for (std::size_t t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        for (std::size_t i = t; i < batch.size(); i += threads) {
          for (std::string& p : archive::trace_problems(batch[i])) found[t].push_back(std::move(p));
        }
      });
    }
  }
  for (auto& f : found)
    out.insert(out.end(), std::make_move_iterator(f.begin()), std::make_move_iterator(f.end()));
  batch.clear();
}

}  // namespace

std::vector<std::string> ArchiveReader::tamper_problems(std::string_view definition) const {
  constexpr std::size_t kBatch = 8192;
  std::vector<std::string> out;
  std::set<RowId> runs;
  std::vector<archive::StoredTrace> batch;
  Statement s = db_.prepare(std::string("SELECT ") + archive::kStoredTraceColumns +
                            " FROM traces WHERE definition = ? ORDER BY id");
  s.bind(1, definition);
  while (s.step()) {
    batch.push_back(archive::stored_trace(s));
    if (batch.back().run_id) runs.insert(*batch.back().run_id);
    if (batch.size() == kBatch) check_batch(batch, out);
  }
  check_batch(batch, out);
  Statement seal = db_.prepare("SELECT seal FROM runs WHERE id = ?");
  for (const RowId run : runs) {
    seal.bind(1, run);
    const std::optional<std::string> stored = seal.step() ? seal.column_optional_text(0) : std::nullopt;
    seal.reset();
    if (stored && archive::compute_run_seal(db_, run) != *stored)
      out.push_back("run " + std::to_string(run) + ": its rows no longer match its seal");
  }
  return out;
}

ArchiveReader::ArchiveReader(fs::path dir, archive::Database db) : dir_(std::move(dir)), db_(std::move(db)) {}

ArchiveReader ArchiveReader::open(const fs::path& dir) {
  const fs::path index = dir / archive::Archive::kIndexFile;
  std::error_code ec;
  if (!fs::is_regular_file(index, ec)) {
    throw Error(Location{dir.string(), 0, ""},
                std::string("not an archive: no ") + archive::Archive::kIndexFile +
                    " (create one with `kharness archive import` or `kharness eval --archive`)");
  }
  archive::Database db = archive::Database::open(index, archive::Database::Mode::read_only);
  db.set_busy_timeout(std::chrono::milliseconds(5000));
  // A second guard beside the read-only open: no statement of ours can write.
  db.exec("PRAGMA query_only = 1");
  const auto version = db.query_int("PRAGMA user_version");
  if (version < kOldestReadSchema || version > archive::current_schema_version()) {
    throw Error(
        Location{index.string(), 0, "user_version"},
        "schema version " + std::to_string(version) + ", but reports read versions " +
            std::to_string(kOldestReadSchema) + " to " + std::to_string(archive::current_schema_version()) +
            (version < kOldestReadSchema ? " (any writing command, e.g. `kharness archive ls`, migrates it)"
                                         : " (use a newer kharness)"));
  }
  return ArchiveReader(dir, std::move(db));
}

std::vector<DefinitionEntry> ArchiveReader::definitions() const {
  // Names from definitions and from traces, since a trace set may hold traces of a
  // definition whose document was not imported.
  Statement s = db_.prepare(
      "SELECT n.name, COALESCE((SELECT op_type FROM definitions d WHERE d.name = n.name LIMIT 1), ''), "
      "(SELECT COUNT(*) FROM workloads w WHERE w.definition = n.name), "
      "(SELECT COUNT(*) FROM solutions s WHERE s.definition = n.name), "
      "(SELECT COUNT(*) FROM traces t WHERE t.definition = n.name) "
      "FROM (SELECT name FROM definitions UNION SELECT DISTINCT definition FROM traces) n ORDER BY n.name");
  std::vector<DefinitionEntry> out;
  while (s.step()) {
    out.push_back({s.column_text(0), s.column_text(1), s.column_int(2), s.column_int(3), s.column_int(4)});
  }
  return out;
}

std::optional<std::string> ArchiveReader::definition_json(std::string_view name) const {
  Statement s = db_.prepare("SELECT json FROM definitions WHERE name = ? ORDER BY id DESC LIMIT 1");
  s.bind(1, name);
  if (!s.step()) return std::nullopt;
  return s.column_text(0);
}

std::vector<WorkloadEntry> ArchiveReader::workloads(std::string_view definition) const {
  Statement s = db_.prepare("SELECT uuid, axes_json FROM workloads WHERE definition = ? ORDER BY id");
  s.bind(1, definition);
  std::vector<WorkloadEntry> out;
  while (s.step()) out.push_back({s.column_text(0), s.column_text(1)});
  return out;
}

std::vector<TraceEntry> ArchiveReader::traces(std::string_view definition) const {
  Statement s = db_.prepare(std::string("SELECT ") + kTraceColumns + " FROM traces WHERE definition = ?");
  s.bind(1, definition);
  std::vector<TraceEntry> out;
  while (s.step()) out.push_back(trace_at(s));
  return out;
}

std::pair<std::int64_t, std::int64_t> ArchiveReader::trace_version(std::string_view definition) const {
  Statement s = db_.prepare("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM traces WHERE definition = ?");
  s.bind(1, definition);
  s.step();
  return {s.column_int(0), s.column_int(1)};
}

std::vector<TraceEntry> ArchiveReader::solution_traces(RowId solution, std::size_t offset,
                                                       std::size_t limit) const {
  Statement s = db_.prepare(std::string("SELECT ") + kTraceColumns +
                            " FROM traces WHERE solution_id = ? ORDER BY id LIMIT ? OFFSET ?");
  s.bind(1, solution).bind(2, as_int(limit)).bind(3, as_int(offset));
  std::vector<TraceEntry> out;
  while (s.step()) out.push_back(trace_at(s));
  return out;
}

std::vector<std::string> ArchiveReader::trace_lines(std::span<const RowId> ids) const {
  Statement s = db_.prepare("SELECT line FROM traces WHERE id = ?");
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (RowId id : ids) {
    s.reset();
    s.bind(1, id);
    out.push_back(s.step() ? s.column_text(0) : std::string());
  }
  return out;
}

std::optional<SolutionEntry> ArchiveReader::solution(RowId id) const {
  Statement s = db_.prepare(std::string("SELECT ") + kSolutionColumns + " FROM solutions WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return solution_at(s);
}

std::vector<SolutionEntry> ArchiveReader::solutions(std::string_view definition, std::size_t offset,
                                                    std::size_t limit) const {
  Statement s = db_.prepare(std::string("SELECT ") + kSolutionColumns +
                            " FROM solutions WHERE definition = ? ORDER BY id LIMIT ? OFFSET ?");
  s.bind(1, definition).bind(2, as_int(limit)).bind(3, as_int(offset));
  return solutions_of(s);
}

std::int64_t ArchiveReader::solution_count(std::string_view definition) const {
  Statement s = db_.prepare("SELECT COUNT(*) FROM solutions WHERE definition = ?");
  s.bind(1, definition);
  s.step();
  return s.column_int(0);
}

std::vector<SolutionEntry> ArchiveReader::baselines(std::string_view definition) const {
  // The name prefix is a range on the (definition, name) index, not a scan.
  const std::string prefix = std::string(definition) + "_baseline_";
  Statement s = db_.prepare(std::string("SELECT ") + kSolutionColumns +
                            " FROM solutions WHERE definition = ?1 AND ((name >= ?2 AND name < ?2 || x'ff') "
                            "OR role = 'baseline') ORDER BY id LIMIT 64");
  s.bind(1, definition).bind(2, prefix);
  return solutions_of(s);
}

std::vector<SolutionEntry> ArchiveReader::children(RowId parent, std::size_t limit) const {
  Statement s = db_.prepare(std::string("SELECT ") + kSolutionColumns +
                            " FROM solutions WHERE parent_id = ? ORDER BY id LIMIT ?");
  s.bind(1, parent).bind(2, as_int(limit));
  return solutions_of(s);
}

std::optional<BuildEntry> ArchiveReader::latest_build(RowId solution) const {
  Statement s = db_.prepare(
      "SELECT id, status, message, compiler, seconds, cache_hit, log_blob, created_at FROM builds "
      "WHERE solution_id = ? ORDER BY id DESC LIMIT 1");
  s.bind(1, solution);
  if (!s.step()) return std::nullopt;
  return BuildEntry{s.column_int(0),    s.column_text(1),     s.column_text(2),          s.column_text(3),
                    s.column_double(4), s.column_int(5) != 0, s.column_optional_text(6), s.column_text(7)};
}

std::vector<ProfileEntry> ArchiveReader::profiles(RowId solution, std::size_t limit) const {
  Statement s = db_.prepare(
      "SELECT id, kind, workload_uuid, blob, COALESCE(summary_json, ''), created_at FROM profiles "
      "WHERE solution_id = ? ORDER BY id LIMIT ?");
  s.bind(1, solution).bind(2, as_int(limit));
  std::vector<ProfileEntry> out;
  while (s.step()) {
    out.push_back({s.column_int(0), s.column_text(1), s.column_optional_text(2), s.column_text(3),
                   s.column_text(4), s.column_text(5)});
  }
  return out;
}

std::vector<DecisionEntry> ArchiveReader::decisions(std::string_view definition, std::size_t limit) const {
  Statement s = db_.prepare(
      "SELECT d.id, d.loop_id, d.round, d.kind, d.solution_id, d.baseline_id, d.evidence_json, d.decided_at "
      "FROM decisions d JOIN solutions s ON s.id = COALESCE(d.solution_id, d.baseline_id) "
      "WHERE s.definition = ? "
      "ORDER BY d.round, d.id LIMIT ?");
  s.bind(1, definition).bind(2, as_int(limit));
  std::vector<DecisionEntry> out;
  while (s.step()) out.push_back(decision_at(s));
  return out;
}

std::vector<DecisionEntry> ArchiveReader::solution_decisions(RowId solution) const {
  Statement s = db_.prepare(
      "SELECT id, loop_id, round, kind, solution_id, baseline_id, evidence_json, decided_at FROM decisions "
      "WHERE solution_id = ?1 OR baseline_id = ?1 ORDER BY round, id LIMIT 200");
  s.bind(1, solution);
  std::vector<DecisionEntry> out;
  while (s.step()) out.push_back(decision_at(s));
  return out;
}

std::vector<DecisionEntry> ArchiveReader::promotions(std::string_view definition, std::size_t limit) const {
  Statement s = db_.prepare(
      "SELECT d.id, d.loop_id, d.round, d.kind, d.solution_id, d.baseline_id, d.evidence_json, d.decided_at "
      "FROM decisions d JOIN solutions s ON s.id = d.solution_id WHERE s.definition = ? AND d.kind = "
      "'promote' "
      "ORDER BY d.round, d.id LIMIT ?");
  s.bind(1, definition).bind(2, as_int(limit));
  std::vector<DecisionEntry> out;
  while (s.step()) out.push_back(decision_at(s));
  return out;
}

std::vector<DecisionEntry> ArchiveReader::loop_decisions(std::string_view loop_id, std::size_t limit) const {
  Statement s = db_.prepare(
      "SELECT id, loop_id, round, kind, solution_id, baseline_id, evidence_json, decided_at FROM decisions "
      "WHERE loop_id = ? ORDER BY round, id LIMIT ?");
  s.bind(1, loop_id).bind(2, as_int(limit));
  std::vector<DecisionEntry> out;
  while (s.step()) out.push_back(decision_at(s));
  return out;
}

std::map<std::string, std::string> ArchiveReader::manifest(std::string_view scope) const {
  Statement s = db_.prepare("SELECT key, value_json FROM loop_manifest WHERE loop_id = ? LIMIT 10000");
  s.bind(1, scope);
  std::map<std::string, std::string> out;
  while (s.step()) out.emplace(s.column_text(0), s.column_text(1));
  return out;
}

std::vector<std::string> ArchiveReader::ablations() const {
  // The primary key (loop_id, key) makes the prefix a range, not a scan.
  Statement s = db_.prepare(
      "SELECT substr(loop_id, 10) FROM loop_manifest WHERE loop_id >= 'ablation:' AND loop_id < 'ablation;' "
      "AND key = 'config' ORDER BY loop_id LIMIT 1000");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.column_text(0));
  return out;
}

std::optional<std::string> ArchiveReader::blob(std::string_view sha256) const {
  const archive::BlobStore store(dir_ / "blobs");
  if (!archive::is_sha256_hex(sha256) || !store.contains(sha256)) return std::nullopt;
  return store.read(sha256);
}

}  // namespace kh::report
