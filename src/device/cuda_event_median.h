// Median of event-timed runs, shared by the peak probes.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "base/cuda_call.h"

namespace kh::detail {

template <class F>
double median_event_seconds(cudaStream_t stream, int repeats, F&& work) {
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  KH_CUDA_CALL(cudaEventCreate(&start));
  KH_CUDA_CALL(cudaEventCreate(&stop));
  work();  // warm-up: first-touch, heuristics, clocks ramping
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    KH_CUDA_CALL(cudaEventRecord(start, stream));
    work();
    KH_CUDA_CALL(cudaEventRecord(stop, stream));
    KH_CUDA_CALL(cudaEventSynchronize(stop));
    float ms = 0;
    KH_CUDA_CALL(cudaEventElapsedTime(&ms, start, stop));
    seconds.push_back(ms * 1e-3);
  }
  KH_CUDA_CALL(cudaEventDestroy(start));
  KH_CUDA_CALL(cudaEventDestroy(stop));
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

}  // namespace kh::detail
