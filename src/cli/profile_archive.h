// `kharness profile --archive DIR`: the profile's evidence kept with its candidate. The
// representatives' evaluation becomes a run of the solution (as `kharness eval --archive`
// records one, so rerun can repeat it), and the report (JSON and Markdown) and each ncu
// session's raw page become profiles of that solution and run, which the dashboard's
// candidate page lists.
#pragma once

#include <nlohmann/json.hpp>

#include "archive/archive.h"
#include "profile/profile_session.h"
#include "record/evaluation_record.h"

namespace kh::cli {

// Returns {"run_id", "solution_content_id", "profiles"} (how many were recorded).
nlohmann::ordered_json archive_profile(archive::Archive& store, const profile::ProfileRequest& request,
                                       const profile::ProfileReport& report,
                                       record::EvaluationContext context);

}  // namespace kh::cli
