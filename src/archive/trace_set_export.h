// `kharness archive export`: the archive back out as a FlashInfer-Trace set.
//
// What was imported goes back to the file it came from, line for line in its original
// order and with its exact bytes, so importing a set and exporting it reproduces the
// set. What kharness recorded itself goes where flashinfer-bench and the shared set
// put it: definitions/<op_type>/<name>.json, workloads/<op_type>/<definition>.jsonl,
// solutions/<op_type>/<definition>/<name>.json, traces/<op_type>/<definition>.jsonl,
// appended after any imported lines of the same file. Safetensors inputs go back to
// the paths their workloads name. References kharness recorded are not exported:
// they are kharness's own code, not solutions of the set.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "archive/archive.h"

namespace kh::archive {

struct ExportOptions {
  std::optional<std::string> definition;  // only this definition and what belongs to it
};

struct ExportReport {
  std::int64_t definitions = 0, workloads = 0, solutions = 0, traces = 0, input_files = 0;
  std::int64_t files = 0;             // files written
  std::vector<std::string> warnings;  // e.g. a definition with several versions
};

// Throws kh::Error when `out` exists and is not an empty folder, when the filter names
// no archived definition, or when a file cannot be written.
[[nodiscard]] ExportReport export_trace_set(Archive& archive, const std::filesystem::path& out,
                                            const ExportOptions& options = {});

}  // namespace kh::archive
