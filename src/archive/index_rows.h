// One row of each index table, as the writers insert it (schema.cpp has the tables).
// Optional fields are SQL NULL when empty.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kh::archive {

using RowId = std::int64_t;

// Where an imported row came from, so that export writes it back to the same file.
struct SourcePlace {
  std::optional<std::string> path;   // relative to the trace set's root
  std::optional<std::int64_t> line;  // 1-based, JSONL only
  std::optional<RowId> import_id;
};

struct DefinitionRow {
  std::string name;
  std::string op_type;
  std::string content_hash;
  std::string json;  // the document's exact text
  SourcePlace source;
};

struct WorkloadRow {
  std::string definition;
  std::string uuid;
  std::string axes_json;
  std::string content_hash;  // of the workload object, canonical
  std::string line;          // the workload line's exact text
  SourcePlace source;
};

struct SolutionRow {
  std::string content_id;  // canonical hash of the document
  std::string name;
  std::string definition;
  std::string author;
  std::string language;
  std::string role = "candidate";
  std::string json_blob;  // the document's exact text, as a blob
  std::optional<RowId> parent_id;
  std::optional<std::string> agent, hypothesis, technique_family;
  std::optional<std::string> prompt_blob, response_blob;
  SourcePlace source;
};

struct BuildRow {
  RowId solution_id = 0;
  std::string key;
  std::string status;
  std::string message;
  std::optional<std::string> log_blob, binary_blob;
  double seconds = 0;
  bool cache_hit = false;
  std::string compiler;
};

struct RunRow {
  std::string origin = "eval";
  std::optional<RowId> rerun_of;
  RowId solution_id = 0;
  std::optional<RowId> reference_id;
  RowId definition_id = 0;
  std::optional<RowId> build_id, reference_build_id, environment_id;
  std::string backend, protocol;
  std::string protocol_json, options_json, checker, tolerance_json;
  std::optional<std::string> speed_of_light_json, peaks_json;
  std::string command_line_json;
  std::string started_at, finished_at;
  std::string status;
  std::int64_t trace_count = 0;
};

// What a trace line says, read once so that reports need not parse lines.
struct TraceFacts {
  std::string definition;
  std::string workload_uuid;
  std::string solution;  // "" when the line names none
  std::string status;
  std::string timestamp;
  std::optional<double> latency_ms, reference_latency_ms, speedup;
  std::optional<double> sol_floor_ms, sol_fraction;  // kharness's speed-of-light evidence
  std::string environment_json;                      // evaluation.environment, "" when absent
  std::string hardware;                              // evaluation.environment.hardware
};

struct TraceRow {
  std::string content_hash;  // of the exact line
  std::optional<RowId> run_id;
  std::optional<RowId> solution_id, environment_id;
  TraceFacts facts;
  std::string line;
  std::int64_t sample_sets = 0;  // rows in `samples` written with it
  SourcePlace source;
};

}  // namespace kh::archive
