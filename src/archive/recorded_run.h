// A run read back from the archive: everything needed to repeat it (definition,
// workloads and their files, candidate and reference sources, checker, tolerance,
// speed-of-light model, options and seed) and what it measured.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "archive/archive.h"
#include "archive/index_rows.h"

namespace kh::archive {

struct RecordedRun {
  RowId id = 0;
  std::string backend, protocol, checker, started_at;
  std::string definition_json;
  std::vector<std::string> workload_lines;                       // in evaluation order
  std::vector<std::pair<std::string, std::string>> input_files;  // path the workload names -> blob
  std::string candidate_json;
  std::string candidate_role;
  std::optional<std::string> reference_json;
  nlohmann::ordered_json options, tolerance, speed_of_light;  // speed_of_light null when none
  std::vector<TraceFacts> traces;                             // in evaluation order
};

// Throws kh::Error when there is no such run or one of its blobs is missing or damaged.
[[nodiscard]] RecordedRun load_run(Archive& archive, RowId run_id);

}  // namespace kh::archive
