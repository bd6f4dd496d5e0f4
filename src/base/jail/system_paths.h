// The host paths a jailed child sees besides what its JailSpec names: the system's
// programs and libraries, the libraries kharness itself runs on, and the GPU's devices.
#pragma once

#include <filesystem>
#include <vector>

namespace kh {

// Read-only for every jailed child: /usr, /bin, /sbin, /lib*, the few files of /etc
// the dynamic loader and compilers read (not /etc as a whole: shadow, keys), the folders
// of every shared library this process has loaded (CUPTI, cuBLAS), and the dynamic
// loader's search folders (LD_LIBRARY_PATH, /etc/ld.so.conf.d), where a GPU host keeps
// its driver's libraries (libcuda, NVML).
[[nodiscard]] std::vector<std::filesystem::path> system_read_only_paths();

// /dev/nvidia0.., nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia-modeset and the
// nvidia-caps folder, those present.
[[nodiscard]] std::vector<std::filesystem::path> gpu_device_paths();

}  // namespace kh
