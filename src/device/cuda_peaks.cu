#include <fmt/format.h>

#include <cstdint>

#include "base/cuda_call.h"
#include "device/cuda_event_median.h"
#include "device/cuda_peaks.h"

namespace kh {

namespace {

constexpr int kChains = 8;  // independent FMA chains per thread: covers the 4-cycle latency
constexpr int kSteps = 4096;

// Each thread runs kChains dependent FMA chains; the result is written only when it
// takes an impossible value, so the compiler must compute it but memory stays idle.
__global__ void ffma_chains(float* sink, float a, float b) {
  float x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = static_cast<float>(threadIdx.x + c);
  for (int s = 0; s < kSteps; ++s) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = fmaf(x[c], a, b);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += x[c];
  if (sum == -1.0f) sink[blockIdx.x] = sum;
}

__global__ void empty_kernel() {}

__global__ void hashed_bytes(std::uint32_t* data, std::size_t words) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9E3779B1u;
    h ^= h >> 15;
    h *= 0x85EBCA77u;
    h ^= h >> 13;
    // Keep every byte a small finite value in bf16 (high byte) and e4m3 alike: sign and
    // a low exponent, never the NaN/Inf codes.
    data[i] = h & 0xB7B7B7B7u;
  }
}

double copy_bandwidth(cudaStream_t stream) {
  constexpr std::size_t kBytes = std::size_t{1} << 30;  // 1 GiB: ~17x the largest L2
  void* src = nullptr;
  void* dst = nullptr;
  KH_CUDA_CALL(cudaMalloc(&src, kBytes));
  KH_CUDA_CALL(cudaMalloc(&dst, kBytes));
  KH_CUDA_CALL(cudaMemsetAsync(src, 1, kBytes, stream));
  const double s = detail::median_event_seconds(
      stream, 7, [&] { KH_CUDA_CALL(cudaMemcpyAsync(dst, src, kBytes, cudaMemcpyDeviceToDevice, stream)); });
  KH_CUDA_CALL(cudaFree(src));
  KH_CUDA_CALL(cudaFree(dst));
  return 2.0 * static_cast<double>(kBytes) / s;  // every byte read once and written once
}

double ffma_rate(cudaStream_t stream) {
  int device = 0;
  int sms = 0;
  KH_CUDA_CALL(cudaGetDevice(&device));
  KH_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int blocks = sms * 16;
  constexpr int kThreads = 256;
  float* sink = nullptr;
  KH_CUDA_CALL(cudaMalloc(&sink, sizeof(float) * blocks));
  const double s = detail::median_event_seconds(stream, 5, [&] {
    ffma_chains<<<blocks, kThreads, 0, stream>>>(sink, 0.9999f, 1e-6f);
    KH_CUDA_CALL(cudaGetLastError());
  });
  KH_CUDA_CALL(cudaFree(sink));
  return 2.0 * kChains * kSteps * static_cast<double>(blocks) * kThreads / s;
}

}  // namespace

namespace detail {
void launch_empty_kernel(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  KH_CUDA_CALL(cudaGetLastError());
}

void fill_gemm_operand(void* data, std::size_t bytes, cudaStream_t stream) {
  hashed_bytes<<<1024, 256, 0, stream>>>(static_cast<std::uint32_t*>(data), bytes / 4);
  KH_CUDA_CALL(cudaGetLastError());
}

}  // namespace detail

DevicePeaks measure_cuda_peaks(cudaStream_t stream) {
  DevicePeaks p;
  p.bandwidth = copy_bandwidth(stream);
  p.fp32 = ffma_rate(stream);
  std::string bf16_note;
  std::string fp8_note;
  p.bf16_tensor = detail::cublas_bf16_rate(stream, bf16_note);
  p.fp8_tensor = detail::cublaslt_fp8_rate(stream, fp8_note);
  p.method = fmt::format(
      "median of event-timed runs: 1 GiB cudaMemcpy D2D (read+write); FFMA chains, 16 blocks of 256 per SM; "
      "cublasGemmEx bf16 8192^3 fp32-accumulate{}; cublasLtMatmul e4m3 8192^3{}",
      bf16_note.empty() ? "" : " (" + bf16_note + ")", fp8_note.empty() ? "" : " (" + fp8_note + ")");
  return p;
}

}  // namespace kh
