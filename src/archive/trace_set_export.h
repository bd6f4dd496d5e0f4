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
//
// By default the set is one flashinfer-bench loads whole and runs as it is: traces carry
// upstream's statuses (archive/upstream_trace.h: REWARD_HACK is written as RUNTIME_ERROR
// with the reason in the log) and solutions upstream's bindings and required fields
// (archive/upstream_solution.h: a kharness-binding solution is converted to tvm-ffi; two
// contents under one name get distinct names, their traces following). What needs no
// change is written byte for byte. `upstream = false` writes kharness's own forms.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "archive/archive.h"

namespace kh::archive {

struct ExportOptions {
  std::optional<std::string> definition;  // only this definition and what belongs to it
  bool upstream = true;                   // see above
};

struct ExportReport {
  std::int64_t definitions = 0, workloads = 0, solutions = 0, traces = 0, input_files = 0;
  std::int64_t files = 0;             // files written
  std::int64_t converted = 0;         // solutions changed for upstream (binding, name, fields)
  std::int64_t left_out = 0;          // solutions upstream could not take, with a warning each
  std::vector<std::string> warnings;  // e.g. a definition with several versions
  std::vector<std::string> notes;     // what was changed for upstream, one line per solution
};

// Throws kh::Error when `out` exists and is not an empty folder, when the filter names
// no archived definition, or when a file cannot be written.
[[nodiscard]] ExportReport export_trace_set(Archive& archive, const std::filesystem::path& out,
                                            const ExportOptions& options = {});

}  // namespace kh::archive
