// How the CUDA runtime names a device, in the forms nvidia-smi and CUDA_VISIBLE_DEVICES
// use, so a trace's device can be matched with what the operators' tools print.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace kh {

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi -L prints it.
[[nodiscard]] std::string gpu_uuid_text(const cudaUUID_t& uuid);

// How many devices the runtime sees. Throws kh::Error ("no CUDA device: ...", with the
// runtime's reason) when it sees none, so every CUDA path says why the same way.
[[nodiscard]] int cuda_device_count();

// "0000:3b:00.0", as cudaDeviceGetPCIBusId writes it. Throws kh::Error on a CUDA failure.
[[nodiscard]] std::string gpu_pci_bus_id(int ordinal);

}  // namespace kh
