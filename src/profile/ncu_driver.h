// Runs Nsight Compute on the candidate: `kharness eval` of the chosen workloads under
// `ncu`, clocks left alone (--clock-control none), metrics from ncu_metrics.h, CSV written
// to a file. Only the second correctness call on each workload (the first is the warm-up)
// is profiled: ncu selects it by the NVTX range the worker opens around it
// (eval/worker_side/profiler_ranges.h), and the inner range names its workload, so one session serves
// every workload.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "profile/regime_evidence.h"

namespace kh::profile {

struct NcuRequest {
  std::filesystem::path kharness;  // the binary to profile
  std::string definition;
  std::filesystem::path solution;      // solution JSON
  std::filesystem::path trace_set;     // empty: kharness's own operators
  std::vector<std::string> workloads;  // uuids, evaluated in this order
  std::filesystem::path work_dir;      // for the CSV and the log
  std::chrono::seconds timeout{120};
  std::string gpus;  // the eval's --gpus (one ordinal: the GPU ncu profiles on); empty: device 0
};

struct NcuRun {
  std::vector<KernelMetrics> kernels;  // the launches of the profiled calls, in launch order
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

// The launches that ran on one workload: those whose range stack names it.
[[nodiscard]] std::vector<KernelMetrics> kernels_of_workload(const std::vector<KernelMetrics>& kernels,
                                                             std::string_view workload_uuid);

}  // namespace kh::profile
