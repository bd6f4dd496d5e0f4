// Standalone probe (not part of the build): does CUPTI's change of a full activity buffer stall
// the CUDA call that fills it? kharness's timer keeps records in 1 MiB buffers (cupti_activity.cpp);
// after a forced flush the next recording call is known to cost 180-270 us (docs/timing.md). If an
// ordinary buffer change costs the same, a launch inside a timed window now and then waits that long
// on the host, and the window's CUDA events see the GPU idle where CUPTI sees nothing: what made an
// honest gdn_prefill candidate look like timer tampering in 1 of 5 iterations on 2026-12-05.
//
// Each call: one launch of a ~2 us kernel, its host time measured, then a stream sync. Records as
// kharness keeps them (kernels, copies, memsets, runtime and driver API). Prints per buffer size
// the buffers CUPTI asked for, the launches slower than 50 us, and the host-time quantiles.
//
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o cupti_buffer_switch_probe \
//     bench/probes/cupti_buffer_switch_probe.cu -lcupti
//   ./cupti_buffer_switch_probe 65536 20000; ./cupti_buffer_switch_probe 1048576 20000
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

std::size_t g_buffer_bytes = 1 << 20;
std::atomic<int> g_requested{0};

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  ++g_requested;
  *size = g_buffer_bytes;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) { std::free(buffer); }

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[static_cast<std::size_t>(q * (v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  g_buffer_bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1u << 20);
  const int calls = argc > 2 ? std::atoi(argv[2]) : 20000;
  if (cudaFree(nullptr) != cudaSuccess) return 1;
  cuptiActivityRegisterCallbacks(requested, completed);
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER})
    cuptiActivityEnable(kind);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  std::vector<double> host_us;
  std::vector<int> slow_at;
  for (int call = 0; call < calls; ++call) {
    const auto t0 = std::chrono::steady_clock::now();
    spin<<<1, 32, 0, stream>>>(3600);
    const auto t1 = std::chrono::steady_clock::now();
    cudaStreamSynchronize(stream);
    const double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
    if (call >= 100) host_us.push_back(us);
    if (call >= 100 && us > 50) slow_at.push_back(call);
  }
  cuptiActivityFlushAll(1);
  std::printf(
      "{\"buffer_bytes\": %zu, \"calls\": %d, \"buffers_requested\": %d, \"launches_over_50us\": %zu, "
      "\"p50_us\": %.2f, \"p99_us\": %.2f, \"p999_us\": %.2f, \"max_us\": %.2f, \"first_slow_calls\": [",
      g_buffer_bytes, calls, g_requested.load(), slow_at.size(), quantile(host_us, 0.5),
      quantile(host_us, 0.99), quantile(host_us, 0.999), quantile(host_us, 1.0));
  for (std::size_t i = 0; i < slow_at.size() && i < 12; ++i) std::printf("%s%d", i ? ", " : "", slow_at[i]);
  std::printf("]}\n");
  return 0;
}
