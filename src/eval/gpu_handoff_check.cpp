#include "eval/gpu_handoff_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <vector>

#include "base/process_tree.h"
#include "error/error.h"

namespace kh {

namespace {

std::string command_name(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/comm", pid));
  std::string name;
  std::getline(in, name);
  return name.empty() ? "?" : name;
}

}  // namespace

GpuHandOff find_gpu_handoff(const SpawnedProcess& worker) {
  try {
    return find_gpu_handoff(worker, gpu_context_holders());
  } catch (const Error& e) {
    GpuHandOff out;
    out.not_checked = e.what();
    return out;
  }
}

GpuHandOff find_gpu_handoff(const SpawnedProcess& worker, const std::vector<GpuContextHolder>& holders) {
  GpuHandOff out;
  if (holders.empty()) return out;
  const std::vector<pid_t> below = descendant_processes(worker.root);
  for (const GpuContextHolder& h : holders) {
    if (h.pid == worker.program || std::find(below.begin(), below.end(), h.pid) == below.end()) continue;
    out.finding = fmt::format(
        "process {} ({}), started by the candidate's worker, holds a CUDA context of its own on GPU {} "
        "({:.0f} MiB): work it runs is outside every timer of the worker",
        h.pid, command_name(h.pid), h.device, static_cast<double>(h.used_bytes) / (1 << 20));
    return out;
  }
  return out;
}

}  // namespace kh
