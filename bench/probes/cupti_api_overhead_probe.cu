// Standalone probe (not part of the build): what CUPTI's API-activity tracing adds to a call of
// several short kernels. kharness's span timer enables the RUNTIME and DRIVER activity kinds
// (every API call recorded, for its host time: activity_windows.h); docs/timing.md puts the cost
// at 3-5 us a launch while records are kept. A call whose kernels are shorter than that waits on
// the host between them, and the span grows by the tracing, not by the kernels: the MoE profile
// of 2026-12-04 (T = 1) has 6 kernels running 21.6 us of an 89.3 us call.
//
// Modes, one per process:
//   none        no CUPTI (cudaEvent span around the call)
//   kernels     CONCURRENT_KERNEL activity only
//   all_api     + RUNTIME + DRIVER: what kharness enables today
//   driver_api  + DRIVER only; runtime_api + RUNTIME only (does one kind alone carry every
//               launch's correlation id, for less?)
//   launch_api  + only the API calls that submit device work (names with Launch, Memcpy or
//               Memset), enabled one by one (cuptiActivityEnableRuntimeApi / DriverApi)
// A call is LAUNCHES launches of a ~2 us kernel on one stream, each followed by EXTRA cheap API
// calls (cudaGetLastError, cudaStreamQuery) as a framework's dispatch makes, then a stream sync.
// Prints per mode the median host time of the launches and the median device span of a call
// (first kernel start to last kernel end), and, with API records, how many kernels carry the
// correlation id of a recorded API call (what the window rule needs).
//
// Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o cupti_api_overhead_probe \
//     bench/probes/cupti_api_overhead_probe.cu -lcupti
//   for m in none kernels all_api driver_api runtime_api launch_api; do ./cupti_api_overhead_probe $m 6 0; \
//     ./cupti_api_overhead_probe $m 6 4; done
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

struct Kernel {
  uint64_t start = 0, end = 0;
  uint32_t correlation = 0;
};
std::mutex g_mutex;
std::vector<Kernel> g_kernels;
std::unordered_set<uint32_t> g_api_correlations;

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      g_kernels.push_back({k->start, k->end, k->correlationId});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME || record->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
      g_api_correlations.insert(reinterpret_cast<const CUpti_ActivityAPI*>(record)->correlationId);
    }
  }
  std::free(buffer);
}

// Enables the API records of the calls that submit device work, by their callback names.
int enable_launch_apis(CUpti_CallbackDomain domain, CUptiResult (*enable)(CUpti_CallbackId, uint8_t)) {
  int enabled = 0;
  for (CUpti_CallbackId id = 1; id < 2000; ++id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    if (std::strstr(name, "Launch") || std::strstr(name, "Memcpy") || std::strstr(name, "Memset")) {
      if (enable(id, 1) == CUPTI_SUCCESS) ++enabled;
    }
  }
  return enabled;
}

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "all_api";
  const int launches = argc > 2 ? std::atoi(argv[2]) : 6;
  const int extra = argc > 3 ? std::atoi(argv[3]) : 0;
  constexpr int kWarmup = 20, kCalls = 200;
  const long long cycles = 3600;  // ~2 us at 1.8-2 GHz
  if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device: %s\n", cudaGetErrorString(e));
    return 1;
  }
  int runtime_ids = 0, driver_ids = 0;
  if (mode != "none") {
    cuptiActivityRegisterCallbacks(requested, completed);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    const bool runtime_kind = mode == "all_api" || mode == "runtime_api";
    const bool driver_kind = mode == "all_api" || mode == "driver_api";
    if (runtime_kind) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
    if (driver_kind) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
    if (mode == "launch_api") {
      runtime_ids = enable_launch_apis(CUPTI_CB_DOMAIN_RUNTIME_API, cuptiActivityEnableRuntimeApi);
      driver_ids = enable_launch_apis(CUPTI_CB_DOMAIN_DRIVER_API, cuptiActivityEnableDriverApi);
    } else if (mode != "kernels" && !runtime_kind && !driver_kind) {
      std::fprintf(stderr, "mode: none, kernels, all_api, driver_api, runtime_api or launch_api\n");
      return 2;
    }
  }
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaEvent_t before, after;
  cudaEventCreate(&before);
  cudaEventCreate(&after);
  std::vector<double> host_us, event_us;
  for (int call = 0; call < kWarmup + kCalls; ++call) {
    if (mode == "none") cudaEventRecord(before, stream);
    const auto t0 = std::chrono::steady_clock::now();
    for (int l = 0; l < launches; ++l) {
      spin<<<1, 32, 0, stream>>>(cycles);
      for (int x = 0; x < extra; ++x) (x % 2 == 0) ? (void)cudaGetLastError() : (void)cudaStreamQuery(stream);
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (mode == "none") cudaEventRecord(after, stream);
    cudaStreamSynchronize(stream);
    if (call < kWarmup) continue;
    host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    if (mode == "none") {
      float ms = 0;
      cudaEventElapsedTime(&ms, before, after);
      event_us.push_back(1e3 * ms);
    }
  }
  std::vector<double> span_us;
  std::size_t attributed = 0, kernels = 0;
  if (mode != "none") {
    cuptiActivityFlushAll(1);
    std::lock_guard<std::mutex> lock(g_mutex);
    std::sort(g_kernels.begin(), g_kernels.end(),
              [](const Kernel& a, const Kernel& b) { return a.start < b.start; });
    const std::size_t skip = static_cast<std::size_t>(kWarmup) * launches;
    for (std::size_t i = skip; i + launches <= g_kernels.size(); i += launches)
      span_us.push_back((g_kernels[i + launches - 1].end - g_kernels[i].start) / 1e3);
    for (std::size_t i = skip; i < g_kernels.size(); ++i) {
      ++kernels;
      attributed += g_api_correlations.count(g_kernels[i].correlation);
    }
  }
  std::printf(
      "{\"mode\": \"%s\", \"launches\": %d, \"extra_api_calls\": %d, \"calls\": %d, \"host_us_median\": "
      "%.2f, "
      "\"span_us_median\": %.2f, \"kernel_records\": %zu, \"kernels_with_an_api_record\": %zu, "
      "\"runtime_ids_enabled\": %d, \"driver_ids_enabled\": %d}\n",
      mode.c_str(), launches, extra, kCalls, median(host_us),
      mode == "none" ? median(event_us) : median(span_us), kernels, attributed, runtime_ids, driver_ids);
  return 0;
}
