// What reports read from the archive, as plain data (one struct per table row they
// show). Scoring and printers take these, so tests can hand-make them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kh::report {

using RowId = std::int64_t;

struct DefinitionEntry {
  std::string name;
  std::string op_type;
  std::int64_t workloads = 0;
  std::int64_t solutions = 0;
  std::int64_t traces = 0;
};

struct WorkloadEntry {
  std::string uuid;
  std::string axes_json;  // {"axis": value, ...}
};

struct TraceEntry {
  RowId id = 0;
  std::optional<RowId> run_id;
  std::optional<RowId> solution_id;
  std::string solution;  // the name the trace gives
  std::string workload_uuid;
  std::string status;
  std::optional<double> latency_ms, reference_latency_ms, speedup;
  std::optional<double> sol_fraction, sol_floor_ms;
  std::string timestamp;
};

struct SolutionEntry {
  RowId id = 0;
  std::string content_id;
  std::string name;
  std::string definition;
  std::string author;
  std::string language;
  std::string role;  // candidate, reference or baseline
  std::optional<RowId> parent_id;
  std::optional<std::string> agent, hypothesis, technique_family;
  std::optional<std::string> prompt_blob, response_blob;
  std::string json_blob;
  std::string created_at;
};

struct BuildEntry {
  RowId id = 0;
  std::string status;
  std::string message;
  std::string compiler;
  double seconds = 0;
  bool cache_hit = false;
  std::optional<std::string> log_blob;
  std::string created_at;
};

struct ProfileEntry {
  RowId id = 0;
  std::string kind;
  std::optional<std::string> workload_uuid;
  std::string blob;
  std::string summary_json;  // "" when none
  std::string created_at;
};

struct DecisionEntry {
  RowId id = 0;
  std::string loop_id;
  std::int64_t round = 0;
  std::string kind;  // archive_only, promote or reject_restore
  std::optional<RowId> solution_id, baseline_id;
  std::string evidence_json;
  std::string decided_at;
};

}  // namespace kh::report
