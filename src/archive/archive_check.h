// `kharness archive verify`: is the archive whole? SQLite's own integrity and
// foreign-key checks, then ours: every run has all the traces it was written with,
// every trace all its sample rows, and every blob the index names is on disk (and,
// with `deep`, hashes to its name). What a kill -9 may leave behind, temp files in
// blobs/tmp, is counted but is not a problem.
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
  std::vector<std::string> problems;  // one line each, naming the row or blob

  [[nodiscard]] bool ok() const {
    return integrity == "ok" && foreign_key_violations == 0 && problems.empty();
  }
};

[[nodiscard]] CheckReport check_archive(Archive& archive, bool deep);

}  // namespace kh::archive
