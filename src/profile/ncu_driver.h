// Runs Nsight Compute on one call of a candidate: `kharness eval` of one workload under
// `ncu`, the second correctness call (the first is the warm-up) selected by the NVTX
// range the worker opens around it (kh_candidate_2), clocks left alone
// (--clock-control none), metrics from ncu_metrics.h, CSV written to a file.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "profile/regime_evidence.h"

namespace kh {

struct NcuRequest {
  std::filesystem::path kharness;  // the binary to profile
  std::string definition;
  std::filesystem::path solution;   // solution JSON
  std::filesystem::path trace_set;  // empty: kharness's own operators
  std::string workload;             // uuid
  std::filesystem::path work_dir;   // for the CSV and the log
  std::chrono::seconds timeout{120};
};

struct NcuRun {
  std::vector<KernelMetrics> kernels;  // the launches of the profiled call
  std::string note;                    // why there are none (ncu missing, failed, ...)
  double seconds = 0;
  std::vector<std::string> command;
};

// $KHARNESS_NCU, PATH, /usr/local/cuda/bin/ncu.
[[nodiscard]] std::optional<std::filesystem::path> find_ncu();

// The ncu command line for `r` (exposed for tests and for people repeating it by hand).
[[nodiscard]] std::vector<std::string> ncu_command(const std::filesystem::path& ncu, const NcuRequest& r);

// Never throws for a failing ncu: the note says what happened.
[[nodiscard]] NcuRun run_ncu(const NcuRequest& r);

}  // namespace kh
