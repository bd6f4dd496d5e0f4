// `kharness archive verify`: is the archive whole, and is it what kharness wrote?
//
// Always: SQLite's own integrity and foreign-key checks; every run has all the traces
// it was written with, every trace all its sample rows; every blob the index names is
// on disk with its size; and no schema object (table, index, trigger, view) is there
// that kharness's migrations did not make (schema_check.h).
//
// With `deep`, everything is recomputed from what it was derived from: every blob
// hashes to its name; every trace row's figures are what its line says and the line
// hashes to the row's hash; sample rows hash to theirs and their trial medians are the
// line's; every run's seal holds (run_check.h); every decision's evidence says what the
// runs it cites say (decision_check.h); and every file in the archive's folder is one
// kharness knows (its index, WAL, blobs, agents' workspaces).
//
// What a kill -9 may leave behind is counted but is not a problem: temp files in
// blobs/tmp, and blobs no row names yet (written before the transaction that would
// have named them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "archive/archive.h"

namespace kh::archive {

struct CheckReport {
  std::string integrity;  // "ok" or SQLite's first complaints
  std::int64_t foreign_key_violations = 0;
  std::int64_t runs_checked = 0;
  std::int64_t blobs_checked = 0;
  std::int64_t stray_temp_files = 0;
  std::int64_t traces_checked = 0;     // deep: rows recomputed from their lines
  std::int64_t decisions_checked = 0;  // deep
  std::int64_t unsealed_runs = 0;      // deep: written before schema version 4, checked without a seal
  std::int64_t unnamed_blobs = 0;      // deep: blob files no row names (a kill before the transaction)
  std::vector<std::string> problems;   // one line each, naming the row, object or file
  std::int64_t more_problems = 0;      // found beyond the first kMostProblems

  [[nodiscard]] bool ok() const {
    return integrity == "ok" && foreign_key_violations == 0 && problems.empty();
  }
};

[[nodiscard]] CheckReport check_archive(Archive& archive, bool deep);

}  // namespace kh::archive
