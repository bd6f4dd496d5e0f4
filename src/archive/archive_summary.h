// What an archive holds, for `kharness archive ls`: row counts per table and the
// latest runs with their pass counts and mean speedup.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "archive/archive.h"
#include "archive/index_rows.h"

namespace kh::archive {

struct RunSummary {
  RowId id = 0;
  std::string origin;
  std::optional<RowId> rerun_of;
  std::string definition;
  std::string solution;
  std::string solution_content_id;
  std::string backend;
  std::string protocol;
  std::string status;  // passed, failed or build_failed
  std::string started_at;
  std::int64_t traces = 0;
  std::int64_t passed = 0;
  std::optional<double> mean_speedup;  // over PASSED traces with a speedup
};

struct ArchiveSummary {
  int schema_version = 0;
  std::vector<std::pair<std::string, std::int64_t>> counts;  // table -> rows
  std::vector<RunSummary> runs;                              // newest first
};

[[nodiscard]] ArchiveSummary summarize_archive(Archive& archive, std::size_t max_runs);

}  // namespace kh::archive
