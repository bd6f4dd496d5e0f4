// KH_REQUIRE_GPU(): the first line of every GPU test. Without a usable CUDA device
// the test is skipped with the runtime's reason, so the `gpu`-labelled tests never
// fail on a machine that has no GPU.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace kh::test {

// Empty when a device is usable; otherwise why not.
inline std::string no_gpu_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  if (count == 0) return "cudaGetDeviceCount reports 0 devices";
  return {};
}

}  // namespace kh::test

#define KH_REQUIRE_GPU()                                                                   \
  do {                                                                                     \
    const std::string kh_no_gpu_reason = ::kh::test::no_gpu_reason();                      \
    if (!kh_no_gpu_reason.empty()) GTEST_SKIP() << "no CUDA device: " << kh_no_gpu_reason; \
  } while (0)
