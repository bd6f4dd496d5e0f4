#include "device/cuda_device_list.h"

#include <fmt/format.h>

#include <array>

#include "base/cuda_call.h"
#include "device/device_lane.h"
#include "error/error.h"

namespace kh {

std::string gpu_uuid_text(const cudaUUID_t& uuid) {
  std::string hex;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex += '-';
    hex += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
  }
  return "GPU-" + hex;
}

std::string gpu_pci_bus_id(int ordinal) {
  std::array<char, 32> id{};  // "0000:00:00.0" plus room, as the runtime documents
  KH_CUDA_CALL(cudaDeviceGetPCIBusId(id.data(), static_cast<int>(id.size()), ordinal));
  return id.data();
}

int cuda_device_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    throw Error(std::string("no CUDA device: ") + cudaGetErrorName(status) + ": " +
                cudaGetErrorString(status));
  }
  if (count == 0) throw Error("no CUDA device: cudaGetDeviceCount reports 0 devices");
  return count;
}

std::vector<GpuIdentity> cuda_devices() {
  const int count = cuda_device_count();
  std::vector<GpuIdentity> out;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    KH_CUDA_CALL(cudaGetDeviceProperties(&p, i));
    out.push_back(GpuIdentity{i, gpu_uuid_text(p.uuid), gpu_pci_bus_id(i), p.name});
  }
  return out;
}

}  // namespace kh
