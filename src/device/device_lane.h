// The devices one evaluation deals its workloads over (`--gpus all|LIST`). Each lane gets
// a worker pair of its own (reference and candidate), so no two timed kernels ever share
// a device, and every trace names the lane's device.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kh {

struct DeviceLane {
  int index = 0;           // the CUDA ordinal as this process sees it, or the CPU's logical lane
  std::string backend;     // what the lane's workers run: "cuda" or "cpu"
  std::string uuid;        // "GPU-..." on CUDA; "" on the CPU
  std::string pci_bus_id;  // "0000:3b:00.0" on CUDA; "" on the CPU
  std::string name;        // the device's name
  // Added to the environment of the lane's workers. On CUDA, CUDA_VISIBLE_DEVICES=<uuid>:
  // a worker sees its GPU alone (as device 0), so a candidate cannot launch work on
  // another lane's GPU under that lane's timer. A UUID, not an ordinal, because ordinals
  // are relative to whatever CUDA_VISIBLE_DEVICES the orchestrator itself was given (a
  // Slurm allocation sets one).
  std::vector<std::pair<std::string, std::string>> env;
};

// The lanes `--gpus SPEC` names for a backend. SPEC is "all" (every CUDA device this
// process sees; on the CPU, one lane) or a comma list of ordinals, "0,2". On the CPU
// the list names logical lanes, workers side by side on the host: what lets CI exercise
// the many-device path, and a many-core host evaluate several workloads at once.
// Throws kh::Error naming --gpus for a malformed, repeated or absent device.
[[nodiscard]] std::vector<DeviceLane> device_lanes(std::string_view backend, std::string_view spec);

// A CUDA device as the runtime reports it.
struct GpuIdentity {
  int ordinal = 0;
  std::string uuid;
  std::string pci_bus_id;
  std::string name;
};

// Every CUDA device this process sees. Throws kh::Error when CUDA is not compiled in or
// no device answers.
[[nodiscard]] std::vector<GpuIdentity> cuda_devices();

}  // namespace kh
