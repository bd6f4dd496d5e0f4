// Peaks of a CUDA device (device_peaks.h): a device-to-device copy, an FFMA chain
// kernel, and GEMMs through cuBLAS (bf16) and cuBLASLt (fp8 e4m3).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "device/device_peaks.h"

namespace kh {

[[nodiscard]] DevicePeaks measure_cuda_peaks(cudaStream_t stream);

namespace detail {
// Launches a kernel that does nothing, one thread, on `stream`.
void launch_empty_kernel(cudaStream_t stream);
// Fills `bytes` of device memory with hashed, non-constant bytes whose every byte is a
// finite bf16/fp8 pattern (tensor cores draw less power on zeros, flattering a peak).
void fill_gemm_operand(void* data, std::size_t bytes, cudaStream_t stream);
// GEMM throughputs in FLOP/s; 0 with `why` set when the library refuses.
[[nodiscard]] double cublas_bf16_rate(cudaStream_t stream, std::string& why);
[[nodiscard]] double cublaslt_fp8_rate(cudaStream_t stream, std::string& why);
}  // namespace detail

}  // namespace kh
