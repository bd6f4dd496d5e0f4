// The backend a command runs on: the one asked for, or for "auto" CUDA where a device
// answers, else the CPU (with a note saying why).
#pragma once

#include <string>

namespace kh::cli {

[[nodiscard]] std::string pick_backend(const std::string& requested);

}  // namespace kh::cli
