#include "archive/schema.h"

#include <array>
#include <string>

#include "archive/write_transaction.h"

namespace kh::archive {
namespace {

// Version 1. Text columns named *_json hold JSON; *_blob columns name blobs by SHA-256;
// times are UTC ISO-8601. Definitions, workloads and solutions are keyed by a hash of
// their canonical JSON (keys sorted), traces by the hash of their exact line, so that
// importing the same set twice, or recording what was imported, adds nothing.
constexpr std::string_view kVersion1 = R"sql(
CREATE TABLE blobs (
  sha256 TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  kind TEXT NOT NULL,
  created_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE imports (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  counts_json TEXT
);

CREATE TABLE environments (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  hardware TEXT NOT NULL,
  json TEXT NOT NULL
);

CREATE TABLE definitions (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  op_type TEXT NOT NULL,
  content_hash TEXT NOT NULL UNIQUE,
  json TEXT NOT NULL,
  source_path TEXT,
  import_id INTEGER REFERENCES imports(id),
  created_at TEXT NOT NULL
);
CREATE INDEX definitions_by_name ON definitions(name);

CREATE TABLE workloads (
  id INTEGER PRIMARY KEY,
  definition TEXT NOT NULL,
  uuid TEXT NOT NULL,
  axes_json TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  line TEXT NOT NULL,
  source_path TEXT,
  source_line INTEGER,
  import_id INTEGER REFERENCES imports(id),
  created_at TEXT NOT NULL,
  UNIQUE (definition, content_hash)
);
CREATE INDEX workloads_by_uuid ON workloads(definition, uuid);

CREATE TABLE workload_files (
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  path TEXT NOT NULL,
  blob TEXT NOT NULL REFERENCES blobs(sha256),
  PRIMARY KEY (workload_id, path)
) WITHOUT ROWID;

CREATE TABLE solutions (
  id INTEGER PRIMARY KEY,
  content_id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  definition TEXT NOT NULL,
  author TEXT NOT NULL,
  language TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('candidate', 'reference', 'baseline')),
  json_blob TEXT NOT NULL REFERENCES blobs(sha256),
  parent_id INTEGER REFERENCES solutions(id),
  agent TEXT,
  hypothesis TEXT,
  technique_family TEXT,
  prompt_blob TEXT REFERENCES blobs(sha256),
  response_blob TEXT REFERENCES blobs(sha256),
  source_path TEXT,
  import_id INTEGER REFERENCES imports(id),
  created_at TEXT NOT NULL
);
CREATE INDEX solutions_by_definition ON solutions(definition, name);
CREATE INDEX solutions_by_parent ON solutions(parent_id);

CREATE TABLE builds (
  id INTEGER PRIMARY KEY,
  solution_id INTEGER NOT NULL REFERENCES solutions(id),
  key TEXT NOT NULL,
  status TEXT NOT NULL,
  message TEXT NOT NULL,
  log_blob TEXT REFERENCES blobs(sha256),
  binary_blob TEXT REFERENCES blobs(sha256),
  seconds REAL NOT NULL,
  cache_hit INTEGER NOT NULL,
  compiler TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX builds_by_solution ON builds(solution_id);

CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  origin TEXT NOT NULL CHECK (origin IN ('eval', 'rerun', 'controller')),
  rerun_of INTEGER REFERENCES runs(id),
  solution_id INTEGER NOT NULL REFERENCES solutions(id),
  reference_id INTEGER REFERENCES solutions(id),
  definition_id INTEGER NOT NULL REFERENCES definitions(id),
  build_id INTEGER REFERENCES builds(id),
  reference_build_id INTEGER REFERENCES builds(id),
  environment_id INTEGER REFERENCES environments(id),
  backend TEXT NOT NULL,
  protocol TEXT NOT NULL,
  protocol_json TEXT NOT NULL,
  options_json TEXT NOT NULL,
  checker TEXT NOT NULL,
  tolerance_json TEXT NOT NULL,
  speed_of_light_json TEXT,
  peaks_json TEXT,
  command_line_json TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  status TEXT NOT NULL,
  trace_count INTEGER NOT NULL
);
CREATE INDEX runs_by_solution ON runs(solution_id);

CREATE TABLE run_workloads (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  position INTEGER NOT NULL,
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  PRIMARY KEY (run_id, position)
) WITHOUT ROWID;

CREATE TABLE traces (
  id INTEGER PRIMARY KEY,
  content_hash TEXT NOT NULL UNIQUE,
  run_id INTEGER REFERENCES runs(id),
  import_id INTEGER REFERENCES imports(id),
  definition TEXT NOT NULL,
  workload_uuid TEXT NOT NULL,
  solution TEXT NOT NULL,
  solution_id INTEGER REFERENCES solutions(id),
  environment_id INTEGER REFERENCES environments(id),
  status TEXT NOT NULL,
  latency_ms REAL,
  reference_latency_ms REAL,
  speedup REAL,
  sol_floor_ms REAL,
  sol_fraction REAL,
  timestamp TEXT NOT NULL,
  line TEXT NOT NULL,
  sample_sets INTEGER NOT NULL,
  source_path TEXT,
  source_line INTEGER,
  created_at TEXT NOT NULL
);
CREATE INDEX traces_by_definition ON traces(definition, solution, workload_uuid);
CREATE INDEX traces_by_run ON traces(run_id);
CREATE INDEX traces_by_solution_id ON traces(solution_id);

CREATE TABLE samples (
  trace_id INTEGER NOT NULL REFERENCES traces(id),
  role TEXT NOT NULL CHECK (role IN ('candidate', 'reference')),
  trial INTEGER NOT NULL,
  count INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (trace_id, role, trial)
) WITHOUT ROWID;

CREATE TABLE profiles (
  id INTEGER PRIMARY KEY,
  solution_id INTEGER NOT NULL REFERENCES solutions(id),
  run_id INTEGER REFERENCES runs(id),
  workload_uuid TEXT,
  kind TEXT NOT NULL,
  blob TEXT NOT NULL REFERENCES blobs(sha256),
  summary_json TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX profiles_by_solution ON profiles(solution_id);

CREATE TABLE decisions (
  id INTEGER PRIMARY KEY,
  loop_id TEXT NOT NULL,
  round INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('archive_only', 'promote', 'reject_restore')),
  solution_id INTEGER REFERENCES solutions(id),
  baseline_id INTEGER REFERENCES solutions(id),
  evidence_json TEXT NOT NULL,
  started_at TEXT NOT NULL,
  decided_at TEXT NOT NULL
);
CREATE INDEX decisions_by_loop ON decisions(loop_id, round);

CREATE TABLE loop_manifest (
  loop_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value_json TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (loop_id, key)
) WITHOUT ROWID;
)sql";

// Version 2: a covering index for the per-definition trace scans of reports and the
// dashboard. Every column they read is in the index, so a leaderboard over 100 000
// traces reads index pages only, never the rows with their full JSON line.
constexpr const char* kVersion2 = R"sql(
CREATE INDEX traces_leaderboard ON traces(definition, id, run_id, solution_id, solution, workload_uuid, status,
                                          latency_ms, reference_latency_ms, speedup, sol_fraction, sol_floor_ms,
                                          timestamp);
)sql";

// Version 3: the controller's memory (archive/hypothesis_outcomes.h): per definition
// and regime, each hypothesis tried and how it ended. One row per loop, round and
// candidate, so a resumed loop recording its round again replaces rather than adds.
constexpr const char* kVersion3 = R"sql(
CREATE TABLE hypothesis_outcomes (
  id INTEGER PRIMARY KEY,
  definition TEXT NOT NULL,
  regime TEXT NOT NULL,
  family TEXT NOT NULL,
  direction TEXT NOT NULL,
  rationale TEXT NOT NULL,
  directive TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('promoted', 'archived', 'rejected', 'failed')),
  reason TEXT NOT NULL,
  speedup_delta REAL,
  loop_id TEXT NOT NULL,
  round INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  UNIQUE (definition, loop_id, round, content_hash)
);
CREATE INDEX hypothesis_outcomes_by_definition ON hypothesis_outcomes(definition, regime, id);
)sql";

// Version 4: tamper evidence (run_seal.h). Each sample row carries the SHA-256 of its
// bytes and each run the seal over its rows and their hashes. Rows written before stay
// NULL there: `archive verify --deep` still checks them against their trace lines.
constexpr const char* kVersion4 = R"sql(
ALTER TABLE samples ADD COLUMN sha256 TEXT;
ALTER TABLE runs ADD COLUMN seal TEXT;
)sql";

// Version 5: the memory keeps the technique family the candidate claimed beside the family of the
// direction the controller asked for: an agent told to vary the family within a direction may
// win with another one, and exploiting it must follow what won. '' where none was claimed (and on
// rows written before).
constexpr const char* kVersion5 = R"sql(
ALTER TABLE hypothesis_outcomes ADD COLUMN candidate_family TEXT NOT NULL DEFAULT '';
)sql";

constexpr std::array kMigrations = {Migration{1, kVersion1}, Migration{2, kVersion2}, Migration{3, kVersion3},
                                    Migration{4, kVersion4}, Migration{5, kVersion5}};

int read_version(const Database& db) { return static_cast<int>(db.query_int("PRAGMA user_version")); }

void refuse_newer(const Database& db, int found, int known) {
  if (found <= known) return;
  throw Error(Location{db.file().string(), 0, "user_version"},
              "the archive's schema version is " + std::to_string(found) + ", newer than the " +
                  std::to_string(known) + " this kharness knows; use a newer kharness");
}

}  // namespace

std::span<const Migration> migrations() noexcept { return kMigrations; }

int current_schema_version() noexcept { return kMigrations.back().to_version; }

int migrate(Database& db, std::span<const Migration> steps) {
  const int known = steps.empty() ? 0 : steps.back().to_version;
  const int seen = read_version(db);
  refuse_newer(db, seen, known);
  if (seen == known) return seen;
  write_transaction(db, [&] {
    const int found = read_version(db);  // another process may have migrated meanwhile
    refuse_newer(db, found, known);
    for (const Migration& m : steps) {
      if (m.to_version <= found) continue;
      try {
        db.exec(m.sql);
      } catch (const BusyError&) {
        throw;  // write_transaction retries the whole migration
      } catch (const SqliteError& e) {
        throw Error(Location{db.file().string(), 0, "user_version"},
                    "migration to schema version " + std::to_string(m.to_version) + " failed: " + e.reason());
      }
      db.exec("PRAGMA user_version = " + std::to_string(m.to_version));
    }
  });
  return seen;
}

}  // namespace kh::archive
