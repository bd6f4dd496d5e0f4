#include "timing/gpu_context_holders.h"

#include <memory>
#include <mutex>

#include "error/error.h"
#include "timing/detail/nvml_call.h"
#include "timing/detail/nvml_library.h"

namespace kh {

namespace {

// One NVML initialisation for the process: each check asks within a workload's
// evaluation, and nvmlInit costs far more than the query.
detail::NvmlLibrary& nvml() {
  static std::mutex mutex;
  static std::unique_ptr<detail::NvmlLibrary> library;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!library) library = std::make_unique<detail::NvmlLibrary>();  // throws: retried next time
  return *library;
}

std::vector<detail::nvml::ProcessInfo> compute_processes(const detail::NvmlLibrary& lib,
                                                         detail::nvml::Device d) {
  // The list may grow between the sizing call and the filling one: a few tries.
  std::vector<detail::nvml::ProcessInfo> infos(16);
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto count = static_cast<unsigned>(infos.size());
    const detail::nvml::Return status = lib.compute_processes(d, &count, infos.data());
    if (status == detail::nvml::kSuccess) {
      infos.resize(count);
      return infos;
    }
    if (status != detail::nvml::kInsufficientSize)
      detail::check_nvml(status, "nvmlDeviceGetComputeRunningProcesses_v3", __FILE__, __LINE__);
    infos.resize(static_cast<std::size_t>(count) + 16);
  }
  throw Error("nvmlDeviceGetComputeRunningProcesses_v3: the process list kept growing");
}

}  // namespace

std::vector<GpuContextHolder> gpu_context_holders() {
  detail::NvmlLibrary& lib = nvml();
  if (lib.compute_processes == nullptr)
    throw Error("libnvidia-ml.so.1 lacks nvmlDeviceGetComputeRunningProcesses_v3 (driver too old?)");
  unsigned devices = 0;
  KH_NVML_CALL(lib.device_count(&devices));
  std::vector<GpuContextHolder> holders;
  for (unsigned index = 0; index < devices; ++index) {
    detail::nvml::Device device = nullptr;
    KH_NVML_CALL(lib.handle_by_index(index, &device));
    for (const detail::nvml::ProcessInfo& p : compute_processes(lib, device))
      holders.push_back({static_cast<pid_t>(p.pid), index, p.used_gpu_memory});
  }
  return holders;
}

}  // namespace kh
