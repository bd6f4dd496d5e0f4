// NvmlLibrary: libnvidia-ml.so.1 opened with dlopen, initialised, and shut down.
//
// RAII: the constructor loads the library, resolves the functions of nvml_abi.h and
// calls nvmlInit_v2; the destructor calls nvmlShutdown and dlclose. Loading at run
// time means a host without the driver's NVML (a CPU-only CI box) still runs
// kharness; the clock monitor then reports clocks as not read.
#pragma once

#include "timing/detail/nvml_abi.h"

namespace kh::detail {

class NvmlLibrary {
 public:
  // Throws kh::Error when the library or one of its functions is missing, or when
  // nvmlInit_v2 fails; the message is the reason the trace records.
  NvmlLibrary();
  ~NvmlLibrary();
  // Owns a dlopen handle and an NVML initialisation: copying would shut NVML down twice.
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  nvml::ShutdownFn shutdown = nullptr;
  nvml::ErrorStringFn error_string = nullptr;
  nvml::HandleByPciBusIdFn handle_by_pci_bus_id = nullptr;
  nvml::HandleByIndexFn handle_by_index = nullptr;
  nvml::ClockInfoFn clock_info = nullptr;
  nvml::ClockInfoFn max_clock_info = nullptr;
  nvml::DriverVersionFn driver_version = nullptr;
  nvml::DeviceCountFn device_count = nullptr;
  // Null where the driver predates it (R470 and older): the process listing then says so,
  // while the clock queries still work.
  nvml::ComputeProcessesFn compute_processes = nullptr;

 private:
  void resolve_all();
  void* handle_ = nullptr;
};

}  // namespace kh::detail
