// The processes that hold a CUDA context on this host's GPUs, as the driver lists them
// (NVML's compute processes).
//
// Why the timing module asks: the harness times one process's work. A kernel that another
// process runs in its own context, on buffers the worker shared with it through CUDA IPC,
// is on no stream the worker's events see and in no CUPTI record the worker collects; the
// driver's list of context holders is where such a process shows. On the H200 host's
// container NVML gave a child the PID it saw for itself
// (bench/results/h200-loop/2026-12-06/call6); that it does so for a process in the jailed
// worker's nested PID namespace too is what CudaEndToEnd.WorkHandedToAnotherProcessIsRewardHack
// shows on a GPU. Where the driver gave PIDs of another namespace, no holder would match a
// descendant: the check would miss the hand-off, never flag an honest solution.
#pragma once

#include <sys/types.h>

#include <vector>

namespace kh {

struct GpuContextHolder {
  pid_t pid = 0;
  unsigned device = 0;  // NVML's index, which ignores CUDA_VISIBLE_DEVICES
  unsigned long long used_bytes = 0;
};

// Every context holder on every GPU. Throws kh::Error where NVML cannot be loaded (no
// driver), lacks the query (a driver of R470 or older) or the query fails.
[[nodiscard]] std::vector<GpuContextHolder> gpu_context_holders();

}  // namespace kh
