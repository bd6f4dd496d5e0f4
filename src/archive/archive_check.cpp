#include "archive/archive_check.h"

#include <set>

#include "archive/decision_check.h"
#include "archive/run_check.h"
#include "archive/schema_check.h"
#include "archive/write_transaction.h"
#include "error/error.h"

namespace kh::archive {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kMostProblems = 100;  // enough to act on; the counts say the rest

void add_problem(CheckReport& r, std::string line) {
  if (r.problems.size() < kMostProblems)
    r.problems.push_back(std::move(line));
  else
    ++r.more_problems;
}

void check_sqlite(Database& db, CheckReport& r) {
  Statement s = db.prepare("PRAGMA integrity_check");
  std::string text;
  while (s.step()) text += (text.empty() ? "" : "; ") + s.column_text(0);
  r.integrity = text;
  Statement fk = db.prepare("PRAGMA foreign_key_check");
  while (fk.step()) {
    ++r.foreign_key_violations;
    add_problem(r, "foreign key: " + fk.column_text(0) + " row " + std::to_string(fk.column_int(1)) +
                       " names a missing " + fk.column_text(2) + " row");
  }
}

void check_schema(Database& db, CheckReport& r) {
  for (const SchemaObject& o : foreign_schema_objects(db))
    add_problem(r, "schema: " + o.type + " " + o.name + " is " + o.problem);
}

// A run is written in one transaction with all its traces, and each trace with all its
// sample rows: a count that differs means a candidate is half there.
void check_runs(Database& db, CheckReport& r) {
  Statement runs = db.prepare(
      "SELECT r.id, r.trace_count, (SELECT count(*) FROM traces t WHERE t.run_id = r.id), "
      "(SELECT count(*) FROM run_workloads w WHERE w.run_id = r.id) FROM runs r");
  while (runs.step()) {
    ++r.runs_checked;
    const std::int64_t id = runs.column_int(0), want = runs.column_int(1), have = runs.column_int(2);
    if (want != have) {
      add_problem(r, "run " + std::to_string(id) + ": " + std::to_string(have) + " traces of " +
                         std::to_string(want));
    }
    if (runs.column_int(3) == 0 && want > 0)
      add_problem(r, "run " + std::to_string(id) + ": no workloads recorded");
  }
  Statement samples = db.prepare(
      "SELECT t.id, t.sample_sets, (SELECT count(*) FROM samples s WHERE s.trace_id = t.id) AS n FROM traces "
      "t WHERE t.sample_sets != n");
  while (samples.step()) {
    add_problem(r, "trace " + std::to_string(samples.column_int(0)) + ": " +
                       std::to_string(samples.column_int(2)) + " sample rows of " +
                       std::to_string(samples.column_int(1)));
  }
}

// Deep: every row recomputed from what it was derived from.
void check_rows(Database& db, CheckReport& r) {
  Statement runs = db.prepare("SELECT id FROM runs ORDER BY id");
  while (runs.step()) {
    bool sealed = false;
    for (std::string& p : run_problems(db, runs.column_int(0), &sealed)) add_problem(r, std::move(p));
    if (!sealed) ++r.unsealed_runs;
  }
  Statement traces = db.prepare(std::string("SELECT ") + kStoredTraceColumns + " FROM traces ORDER BY id");
  while (traces.step()) {
    ++r.traces_checked;
    const StoredTrace t = stored_trace(traces);
    if (t.run_id) continue;  // checked with its run
    for (std::string& p : trace_problems(t)) add_problem(r, std::move(p));
    for (std::string& p : sample_problems(db, t)) add_problem(r, std::move(p));
  }
  Statement decisions = db.prepare("SELECT id, evidence_json FROM decisions ORDER BY id");
  while (decisions.step()) {
    ++r.decisions_checked;
    const auto evidence = nlohmann::ordered_json::parse(decisions.column_text(1), nullptr, false);
    for (std::string& p : decision_problems(db, decisions.column_int(0), evidence))
      add_problem(r, std::move(p));
  }
}

void check_blobs(Archive& archive, bool deep, CheckReport& r) {
  Statement s = archive.db().prepare("SELECT sha256, size FROM blobs");
  while (s.step()) {
    ++r.blobs_checked;
    const std::string sha = s.column_text(0);
    const fs::path path = archive.blobs().path_of(sha);
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) {
      add_problem(r, "blob " + sha + " is missing (" + path.string() + ")");
    } else if (static_cast<std::int64_t>(size) != s.column_int(1)) {
      add_problem(r, "blob " + sha + " has " + std::to_string(size) + " bytes, the index says " +
                         std::to_string(s.column_int(1)));
    } else if (deep) {
      try {
        (void)archive.blobs().read(sha);
      } catch (const Error& e) {
        add_problem(r, e.what());
      }
    }
  }
}

bool is_hex(const std::string& s, std::size_t n) {
  return s.size() == n && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Deep: files in the archive's folder that kharness did not put there.
void check_files(Archive& archive, CheckReport& r) {
  static const std::set<std::string> kKnown = {std::string(Archive::kIndexFile),
                                               std::string(Archive::kIndexFile) + "-wal",
                                               std::string(Archive::kIndexFile) + "-shm",
                                               std::string(Archive::kIndexFile) + "-journal",
                                               "blobs",
                                               "workspaces"};
  std::error_code ec;
  for (fs::directory_iterator it(archive.dir(), ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    if (!kKnown.contains(it->path().filename().string()))
      add_problem(r, "file " + it->path().string() + " is not one kharness keeps in an archive");
  }
  std::set<std::string> named;
  Statement s = archive.db().prepare("SELECT sha256 FROM blobs");
  while (s.step()) named.insert(s.column_text(0));
  const fs::path blobs = archive.blobs().temp_dir().parent_path();
  for (fs::directory_iterator shard(blobs, ec); !ec && shard != fs::directory_iterator();
       shard.increment(ec)) {
    const std::string name = shard->path().filename().string();
    if (shard->path() == archive.blobs().temp_dir()) continue;
    std::error_code type_ec;
    if (!is_hex(name, 2) || !shard->is_directory(type_ec)) {
      add_problem(r, "file " + shard->path().string() + " is not a blob shard");
      continue;
    }
    for (fs::directory_iterator f(shard->path(), ec); !ec && f != fs::directory_iterator(); f.increment(ec)) {
      const std::string file = f->path().filename().string();
      if (!is_hex(file, 64) || file.compare(0, 2, name) != 0 || !f->is_regular_file(type_ec))
        add_problem(r, "file " + f->path().string() + " is not a blob");
      else if (!named.contains(file))
        ++r.unnamed_blobs;
    }
  }
}

void count_temp_files(const Archive& archive, CheckReport& r) {
  std::error_code ec;
  for (fs::directory_iterator it(archive.blobs().temp_dir(), ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    ++r.stray_temp_files;
  }
}

}  // namespace

CheckReport check_archive(Archive& archive, bool deep) {
  CheckReport r;
  Database& db = archive.db();
  check_sqlite(db, r);
  check_schema(db, r);
  read_transaction(db, [&] {  // one snapshot for the cross-table counts
    check_runs(db, r);
    check_blobs(archive, deep, r);
    if (deep) check_rows(db, r);
  });
  if (deep) check_files(archive, r);
  count_temp_files(archive, r);
  return r;
}

}  // namespace kh::archive
