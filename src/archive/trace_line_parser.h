// Parses a batch of trace lines into index rows on several threads: JSON parsing is
// most of what an import costs, while the database takes rows from one writer anyway.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "archive/index_rows.h"
#include "archive/set_files.h"
#include "trace/diagnostic.h"

namespace kh::archive {

struct ParsedTraceLine {
  std::optional<TraceRow> row;        // set when the line parsed
  std::optional<Diagnostic> problem;  // set when it did not
};

// Results in the order of `lines`; each row carries its source place (file, line,
// import). `threads` 0: as many as the machine has, at most 8.
[[nodiscard]] std::vector<ParsedTraceLine> parse_trace_lines(std::span<const TextLine> lines,
                                                             const SetFile& file, RowId import_id,
                                                             unsigned threads = 0);

}  // namespace kh::archive
