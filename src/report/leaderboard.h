// A definition's leaderboard, from its archived workloads and traces.
//
// Which trace counts: per (candidate, workload) the LATEST one (timestamp, then id), so a
// rerun replaces what it re-measured. A candidate is an archived solution (by id) or,
// for imported traces whose solution document was not imported, a solution name.
// The workloads scored are those any trace of the definition ran on.
//
// The baseline latency of a workload is the baseline solution's latest PASSED latency
// there when the baseline ran on it (kharness names baselines
// <definition>_baseline_<language>; among several, the one that passed most workloads),
// else the reference latency recorded in the candidate's own trace.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/archive_rows.h"
#include "report/promoted_speedup.h"
#include "report/round_rows.h"
#include "report/scoring.h"

namespace kh::report {

struct WorkloadColumn {
  std::string uuid;
  std::string axes_json;              // "{}" when the workload itself is not archived
  std::optional<double> baseline_ms;  // the baseline solution's latency, when it ran here
};

struct CandidateRow {
  std::string name;
  std::optional<RowId> solution_id;
  bool is_baseline = false;
  std::vector<WorkloadOutcome> outcomes;        // one per workload column
  std::vector<std::optional<RowId>> trace_ids;  // the trace each outcome came from
  std::string first_timestamp;                  // of its earliest trace: its place in history
  Score score;
};

// A promotion of an optimisation loop on the definition, with its reported speedup
// (report/promoted_speedup.h): the figure the loop's summary printed.
struct PromotionRow {
  std::string loop_id;
  std::int64_t round = 0;
  std::optional<RowId> solution_id;
  std::string solution;                    // its name
  std::optional<PromotedSpeedup> speedup;  // absent for decisions recorded before kharness kept it
};

struct DefinitionReport {
  std::string definition;
  std::string baseline;  // the baseline solution's name; "" when only reference latencies were used
  std::vector<double> sweep;
  std::vector<WorkloadColumn> workloads;
  std::vector<CandidateRow> candidates;  // ranked: score, then mean speedup, then name
  // Rows of this definition that disagree with what they were derived from (trace lines,
  // hashes, run seals: archive/run_check.h). When any, nothing is ranked: a tampered
  // archive is reported, never ranked.
  std::vector<std::string> tampered;
  std::vector<PromotionRow> promotions;  // by round; filled by load_definition_report
  std::vector<RoundRow> rounds;  // every loop's rounds on it, by round; filled by load_definition_report
};

struct LeaderboardInput {
  std::string definition;
  std::span<const WorkloadEntry> workloads;
  std::span<const TraceEntry> traces;
  std::vector<std::string> baseline_names;  // candidates for the baseline; the CLI's --baseline alone
  bool baseline_required = false;           // true: a named baseline without traces is an error
  std::span<const double> sweep;
};

// Throws kh::Error when baseline_required and none of baseline_names has a trace.
[[nodiscard]] DefinitionReport build_leaderboard(const LeaderboardInput& in);

}  // namespace kh::report
