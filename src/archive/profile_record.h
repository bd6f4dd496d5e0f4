// Profiles (issue 6: ncu reports, ptxas resource usage, SASS listings) of an archived
// solution, stored as blobs with a JSON summary that reports can read without them.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "archive/archive.h"
#include "archive/index_rows.h"

namespace kh::archive {

struct ProfileRecord {
  std::string solution;  // content id, already in the archive
  std::optional<RowId> run_id;
  std::optional<std::string> workload_uuid;
  std::string kind;                // e.g. "ncu", "ptxas", "sass"
  std::string bytes;               // the report as produced
  nlohmann::ordered_json summary;  // null when none
};

// Throws kh::Error when the solution (or run) is not in the archive.
RowId record_profile(Archive& archive, const ProfileRecord& profile);

}  // namespace kh::archive
