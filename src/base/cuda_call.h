// KH_CUDA_CALL(expr): every CUDA runtime call goes through it; a failure throws
// kh::Error naming the call, file:line and CUDA's error name and string.
// KH_CUDA_CALL_NOEXCEPT(expr) is the destructor form: it reports on stderr.
#pragma once

#include <cuda_runtime_api.h>

#include "base/call_error.h"

namespace kh::detail {

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    throw_call_error(call, file, line, cudaGetErrorName(status), cudaGetErrorString(status));
  }
}

inline void check_cuda_noexcept(cudaError_t status, const char* call, const char* file, int line) noexcept {
  if (status != cudaSuccess) {
    report_call_error(call, file, line, cudaGetErrorName(status), cudaGetErrorString(status));
  }
}

}  // namespace kh::detail

#define KH_CUDA_CALL(expr) ::kh::detail::check_cuda((expr), #expr, __FILE__, __LINE__)
#define KH_CUDA_CALL_NOEXCEPT(expr) ::kh::detail::check_cuda_noexcept((expr), #expr, __FILE__, __LINE__)
