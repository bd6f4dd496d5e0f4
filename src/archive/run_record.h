// Everything one evaluation run of one candidate leaves in the archive, as plain data:
// what write_run (run_writer.h) stores in one transaction. Built from eval's results
// by evaluation_record.h, or by any other producer (the controller, tests).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kh::archive {

// Who made a candidate and why (docs/archive.md, lineage).
struct Lineage {
  std::string parent;  // content id of the parent solution, already in the archive; "" for none
  std::string agent;   // e.g. "tuner", "claude-code"
  std::string hypothesis;
  std::string technique_family;
  std::optional<std::string> prompt;  // stored as blobs
  std::optional<std::string> response;
};

struct SolutionRecord {
  std::string json_text;           // a FlashInfer-Trace solution document, exactly as evaluated
  std::string role = "candidate";  // candidate, reference or baseline
  Lineage lineage;
};

struct BuildRecord {
  std::string key;     // the build cache key
  std::string status;  // ok, compile_error or timeout
  std::string message;
  std::string log;
  std::filesystem::path binary;  // the built library; empty when there is none
  double seconds = 0;
  bool cache_hit = false;
  std::string compiler;
};

// A file a workload reads (safetensors), by the path the workload names.
struct InputFile {
  std::string path;            // as written in the workload, relative to the set's root
  std::filesystem::path file;  // where it is now
};

struct WorkloadRecord {
  std::string line;  // the workload as a FlashInfer-Trace workload line
  std::vector<InputFile> files;
};

struct TraceRecord {
  std::string line;                                    // one FlashInfer-Trace JSONL line
  std::vector<std::vector<double>> candidate_samples;  // accepted samples (ms) per timing trial
  std::vector<std::vector<double>> reference_samples;
};

struct RunRecord {
  std::string origin = "eval";  // eval, rerun or controller
  std::optional<std::int64_t> rerun_of;
  std::string definition_json;
  std::vector<WorkloadRecord> workloads;  // in evaluation order
  SolutionRecord candidate;
  std::optional<SolutionRecord> reference;
  std::optional<BuildRecord> build;
  std::optional<BuildRecord> reference_build;
  nlohmann::ordered_json environment;  // {hardware, libs, device, host}
  std::string backend;
  std::string protocol;
  nlohmann::ordered_json protocol_json;
  nlohmann::ordered_json options_json;  // eval_options_json.h: everything rerun needs
  std::string checker = "default";
  nlohmann::ordered_json tolerance_json;
  nlohmann::ordered_json speed_of_light_json;  // the operator's model; null when none
  nlohmann::ordered_json peaks_json;           // the device peaks used; null when none
  std::vector<std::string> command_line;
  std::string started_at;
  std::string finished_at;
  std::vector<TraceRecord> traces;
};

}  // namespace kh::archive
