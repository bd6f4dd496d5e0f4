// The device's loop over a generator's steps (host_generation_loop.h is the host
// twin's): a grid-stride kernel calls step(i) for every i in [0, n) on the site's
// stream. Included by the operators' .cu files, which are compiled with -fmad=false so
// that the steps round exactly as on the host.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "base/cuda_call.h"

namespace kh {

template <class Step>
__global__ void generation_steps(std::uint64_t n, Step step) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) step(i);
}

// Queues step(i), i in [0, n), on `stream` (a cudaStream_t); throws kh::Error when the
// launch fails. `threads` per block: fewer for steps that keep a row in registers.
template <class Step>
void run_steps_on_device(std::uint64_t n, const Step& step, void* stream, unsigned threads = 256) {
  if (n == 0) return;
  constexpr std::uint64_t kMaxBlocks = 8192;
  const std::uint64_t blocks = (n + threads - 1) / threads;
  generation_steps<<<static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks), threads, 0,
                     static_cast<cudaStream_t>(stream)>>>(n, step);
  KH_CUDA_CALL(cudaGetLastError());
}

}  // namespace kh
