// `kharness archive import`: a whole FlashInfer-Trace set into the archive.
//
// Every document keeps its exact text and the path (and line) it came from, so export
// writes the same bytes back. Importing is idempotent: what is already archived (same
// content) is skipped, so importing twice adds nothing, and an import cut short by a
// kill is finished by running it again. Rows go in batches, each one transaction of
// whole documents; a bad file or line is reported and skipped, never half-imported.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "archive/index_rows.h"
#include "trace/diagnostic.h"

namespace kh::archive {

struct ImportProgress {
  std::string file;  // relative path of the file being read
  std::uintmax_t bytes_done = 0;
  std::uintmax_t bytes_total = 0;
  std::int64_t documents = 0;  // definitions, solutions, workload and trace lines read so far
};

struct ImportOptions {
  std::size_t batch = 5000;  // lines per transaction
  std::function<void(const ImportProgress&)> on_progress;
};

struct KindCount {
  std::int64_t read = 0;   // documents read without error
  std::int64_t added = 0;  // of which new to the archive
};

struct ImportReport {
  KindCount definitions, solutions, workloads, traces, input_files;
  std::vector<Diagnostic> problems;  // errors (document skipped) and warnings
  std::optional<RowId> import_id;    // the imports row, unless nothing was added
  double seconds = 0;

  [[nodiscard]] std::int64_t added() const {
    return definitions.added + solutions.added + workloads.added + traces.added + input_files.added;
  }
};

// Throws kh::Error when `root` is not a folder or the archive cannot be written.
[[nodiscard]] ImportReport import_trace_set(Archive& archive, const std::filesystem::path& root,
                                            const ImportOptions& options = {});

}  // namespace kh::archive
