// FlashInfer-Trace documents (exact text in) to index rows (out): the parsing the
// import and the run writer share. Each reads the text with trace/'s readers, so a
// malformed document throws kh::Error naming `where` (file, line, field).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "archive/index_rows.h"
#include "error/error.h"
#include "trace/trace.h"

namespace kh::archive {

[[nodiscard]] DefinitionRow definition_row(std::string_view text, const Location& where);
struct WorkloadDocument {
  WorkloadRow row;
  std::vector<std::string> input_paths;  // the safetensors files its inputs name
};
// A workload line (a Trace whose solution and evaluation are null).
[[nodiscard]] WorkloadDocument workload_document(std::string_view line, const Location& where);
// The row without json_blob (the caller stores the text and names the blob).
[[nodiscard]] SolutionRow solution_row(std::string_view text, const Location& where);
// A trace line; throws when it has no evaluation (a workload line in a traces file).
[[nodiscard]] TraceRow trace_row(std::string_view line, const Location& where);
// What the archive reads from a parsed trace.
[[nodiscard]] TraceFacts trace_facts(const Trace& trace);

}  // namespace kh::archive
