// The few NVML declarations kharness uses, written out by hand.
//
// Why not #include <nvml.h>: the NVML header is not packaged with the CUDA toolkit
// on the build hosts (it ships with the driver's development files), and the binary
// must run on GPU hosts whose driver version differs from the build host. NVML's C
// ABI is stable and documented (NVML API Reference, "Device Queries" and
// "Initialization and Cleanup"), so the prototypes and the enum values below are
// copied from that documentation and the functions are resolved by name at run time
// with dlopen/dlsym. Only read-only queries appear here: kharness never sets clocks.
#pragma once

namespace kh::detail::nvml {

// nvmlReturn_t is a C enum; C enums are int-sized in the x86-64 and aarch64 ABIs.
using Return = int;
inline constexpr Return kSuccess = 0;           // NVML_SUCCESS
inline constexpr Return kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE

// nvmlClockType_t values (NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2).
inline constexpr int kClockSm = 1;

// nvmlDevice_t is an opaque pointer to struct nvmlDevice_st.
struct DeviceSt;
using Device = DeviceSt*;

// nvmlProcessInfo_t as nvmlDeviceGetComputeRunningProcesses_v3 fills it (the v2 layout).
struct ProcessInfo {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

// NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
inline constexpr unsigned kDriverVersionBufferSize = 80;

using InitFn = Return (*)();                                  // nvmlInit_v2
using ShutdownFn = Return (*)();                              // nvmlShutdown
using ErrorStringFn = const char* (*)(Return);                // nvmlErrorString
using HandleByPciBusIdFn = Return (*)(const char*, Device*);  // nvmlDeviceGetHandleByPciBusId_v2
using HandleByIndexFn = Return (*)(unsigned, Device*);        // nvmlDeviceGetHandleByIndex_v2
using ClockInfoFn = Return (*)(Device, int, unsigned*);       // nvmlDeviceGetClockInfo, ...GetMaxClockInfo
using DriverVersionFn = Return (*)(char*, unsigned);          // nvmlSystemGetDriverVersion
using DeviceCountFn = Return (*)(unsigned*);                  // nvmlDeviceGetCount_v2
// nvmlDeviceGetComputeRunningProcesses_v3(device, &count, infos)
using ComputeProcessesFn = Return (*)(Device, unsigned*, ProcessInfo*);

}  // namespace kh::detail::nvml
