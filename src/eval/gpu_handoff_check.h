// Did a candidate hand its work to another process on the GPU?
//
// A process the worker started (any descendant of the process kharness started: in a jail
// that is the PID namespace's init, so even a double-forked one stays below it; the worker's
// program itself, the init's first child, excepted) that holds a CUDA context of its own
// can run the candidate's kernels on buffers shared through CUDA IPC: no stream the
// worker's events time and no CUPTI record the worker collects sees them. A kernel
// solution has no reason to start one, so one found is a reward hack. The check asks the
// driver (NVML) from the orchestrator, outside the candidate's reach.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/process_tree.h"
#include "timing/gpu_context_holders.h"

namespace kh {

struct GpuHandOff {
  std::optional<std::string> finding;      // the process, its GPU and its memory
  std::optional<std::string> not_checked;  // why the driver could not be asked
};

// Asks the driver for the GPUs' context holders, then judges them as below.
[[nodiscard]] GpuHandOff find_gpu_handoff(const SpawnedProcess& worker);
// The first of `holders` that is a descendant of `worker.root` other than `worker.program`,
// as a finding.
[[nodiscard]] GpuHandOff find_gpu_handoff(const SpawnedProcess& worker,
                                          const std::vector<GpuContextHolder>& holders);

}  // namespace kh
