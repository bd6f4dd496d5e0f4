#include "archive/archive_check.h"

#include "archive/write_transaction.h"
#include "error/error.h"

namespace kh::archive {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kMostProblems = 100;  // enough to act on; the counts say the rest

void add_problem(CheckReport& r, std::string line) {
  if (r.problems.size() < kMostProblems) r.problems.push_back(std::move(line));
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
      "t "
      "WHERE t.sample_sets != n");
  while (samples.step()) {
    add_problem(r, "trace " + std::to_string(samples.column_int(0)) + ": " +
                       std::to_string(samples.column_int(2)) + " sample rows of " +
                       std::to_string(samples.column_int(1)));
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
  db.exec("BEGIN");  // one snapshot for the cross-table counts
  try {
    check_runs(db, r);
    check_blobs(archive, deep, r);
  } catch (...) {
    rollback_if_open(db);
    throw;
  }
  db.exec("COMMIT");
  count_temp_files(archive, r);
  return r;
}

}  // namespace kh::archive
