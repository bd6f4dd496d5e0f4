// Honest: takes 256 MiB of scratch from the stream-ordered pool on every call, touches
// it, and frees it, as kernels with per-call workspaces do. The allocation must not make
// the events-vs-CUPTI check cry tampering.
#include "rmsnorm_common.cuh"

__global__ void touch_scratch(float* scratch, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    scratch[i] = 0.0f;
  }
}

void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t stream) {
  auto s = static_cast<cudaStream_t>(stream);
  constexpr std::size_t kFloats = std::size_t{64} << 20;
  float* scratch = nullptr;
  if (cudaMallocAsync(reinterpret_cast<void**>(&scratch), kFloats * sizeof(float), s) != cudaSuccess) return;
  touch_scratch<<<264, 256, 0, s>>>(scratch, kFloats);
  launch_rmsnorm(x, w, y, s);
  cudaFreeAsync(scratch, s);
}
