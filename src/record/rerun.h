// `kharness rerun RUN_ID`: repeats a measurement from the archive alone. The
// definition, workloads (and the safetensors files they read), candidate and reference
// sources, checker, tolerance, speed-of-light model and every option, base seed
// included, come from the run as recorded; nothing is read from operators/ or a trace
// set. The new run is recorded too (origin "rerun", rerun_of the old one), so the
// archive keeps both sets of numbers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "archive/index_rows.h"
#include "eval/eval_options.h"

namespace kh::record {

using archive::RowId;
using archive::TraceFacts;

struct RerunOptions {
  bool fresh_seeds = false;  // draw new seeds instead of the recorded base seed
  bool record = true;        // store the new run in the archive
  std::vector<std::string> command_line;
  std::filesystem::path worker_executable;  // empty: this process's executable
  std::filesystem::path cache_dir;          // build cache; empty: the default
  std::function<void(const EvalProgress&)> on_progress;
};

struct RerunWorkload {
  std::string workload_uuid;
  std::optional<TraceFacts> before;  // nullopt: the old run had no trace for it
  TraceFacts now;
};

struct RerunResult {
  RowId run_id = 0;
  std::optional<RowId> new_run_id;
  std::string solution;
  std::string definition;
  std::string backend;
  std::string protocol;
  std::optional<std::uint64_t> seed;  // the base seed the rerun used
  bool same_seed = false;             // the recorded one
  std::vector<RerunWorkload> workloads;

  [[nodiscard]] bool statuses_equal() const;
};

// Throws kh::Error when the run is not in the archive, a blob is missing, or the
// harness cannot run (no device for the recorded backend, the reference fails to build).
[[nodiscard]] RerunResult rerun(archive::Archive& archive, RowId run_id, const RerunOptions& options);

}  // namespace kh::record
