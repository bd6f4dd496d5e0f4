#include "timing/detail/nvml_library.h"

#include <dlfcn.h>

#include <atomic>
#include <string>

#include "error/error.h"
#include "timing/detail/nvml_call.h"

namespace kh::detail {

namespace {

// nvmlErrorString of the library loaded most recently, for nvml_error_text(). It is
// a process-wide pointer because the checked-call macro has no library object at hand.
std::atomic<nvml::ErrorStringFn> g_error_string{nullptr};

constexpr const char* kLibraryName = "libnvidia-ml.so.1";

template <typename Fn>
Fn resolve(void* handle, const char* symbol) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr) {
    throw Error(std::string(kLibraryName) + " lacks " + symbol + " (driver too old?)");
  }
  return reinterpret_cast<Fn>(address);
}

}  // namespace

std::string nvml_error_text(nvml::Return status) {
  const nvml::ErrorStringFn error_string = g_error_string.load();
  const char* text = error_string != nullptr ? error_string(status) : nullptr;
  return text != nullptr ? std::string(text) : "NVML error " + std::to_string(status);
}

NvmlLibrary::NvmlLibrary() {
  // RTLD_LOCAL: NVML's symbols stay out of the global namespace that candidates'
  // shared libraries are resolved against.
  handle_ = dlopen(kLibraryName, RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw Error(std::string(kLibraryName) + " not loaded: " + (why != nullptr ? why : "unknown reason"));
  }
  try {
    resolve_all();
    const auto init = resolve<nvml::InitFn>(handle_, "nvmlInit_v2");
    KH_NVML_CALL(init());
  } catch (const Error&) {
    // The constructor did not finish, so the destructor will not run: close here,
    // then let the caller see the reason.
    g_error_string.store(nullptr);
    dlclose(handle_);
    throw;
  }
}

void NvmlLibrary::resolve_all() {
  shutdown = resolve<nvml::ShutdownFn>(handle_, "nvmlShutdown");
  error_string = resolve<nvml::ErrorStringFn>(handle_, "nvmlErrorString");
  g_error_string.store(error_string);
  handle_by_pci_bus_id = resolve<nvml::HandleByPciBusIdFn>(handle_, "nvmlDeviceGetHandleByPciBusId_v2");
  handle_by_index = resolve<nvml::HandleByIndexFn>(handle_, "nvmlDeviceGetHandleByIndex_v2");
  clock_info = resolve<nvml::ClockInfoFn>(handle_, "nvmlDeviceGetClockInfo");
  max_clock_info = resolve<nvml::ClockInfoFn>(handle_, "nvmlDeviceGetMaxClockInfo");
  driver_version = resolve<nvml::DriverVersionFn>(handle_, "nvmlSystemGetDriverVersion");
  device_count = resolve<nvml::DeviceCountFn>(handle_, "nvmlDeviceGetCount_v2");
  compute_processes =
      reinterpret_cast<nvml::ComputeProcessesFn>(dlsym(handle_, "nvmlDeviceGetComputeRunningProcesses_v3"));
}

NvmlLibrary::~NvmlLibrary() {
  KH_NVML_CALL_NOEXCEPT(shutdown());
  g_error_string.store(nullptr);
  dlclose(handle_);
}

}  // namespace kh::detail
