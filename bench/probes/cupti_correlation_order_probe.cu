// Standalone probe (not part of the build): can the span timer place device work in its launch
// window WITHOUT CUPTI's runtime and driver API records, which cost ~2 us a launch
// (cupti_api_overhead_probe.cu, docs/timing.md)? The idea: correlation ids are handed out in API
// call order; if that holds with only the kernel and memset activity kinds enabled, a window is
// the range of ids between two marker memsets the timer makes, and no API record is needed.
//
// Two host threads launch, in turn under one mutex (so the host order is known), a trivial kernel
// whose grid size encodes the launch's place in that order (1..kOrder, cycling); every 8th step a
// 4-byte memset on a third stream stands for a window marker. Then, from the activity records alone:
//   zero_ids        records whose correlation id is 0 (the idea fails if any)
//   order_breaks    neighbours, by correlation id, whose host order disagrees (the idea fails if any)
//   id_gaps         ids between consecutive records that no record holds (API calls that made no
//                   device work: expected, harmless)
// Prints one JSON line per mode: kernels (CONCURRENT_KERNEL + MEMSET), all_api (+ RUNTIME + DRIVER).
//
// Build and run on the GPU machine:
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o cupti_correlation_order_probe \
//     bench/probes/cupti_correlation_order_probe.cu -lcupti
//   ./cupti_correlation_order_probe kernels; ./cupti_correlation_order_probe all_api
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kOrder = 97;  // grid sizes 1..kOrder encode the host order (cycling)

struct Record {
  uint32_t correlation = 0;
  int order = 0;  // grid size (kernel) or kOrder + 1 (marker memset)
};
std::mutex g_records_mutex;
std::vector<Record> g_records;

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard<std::mutex> lock(g_records_mutex);
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      g_records.push_back({k->correlationId, k->gridX});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      g_records.push_back({m->correlationId, kOrder + 1});
    }
  }
  std::free(buffer);
}

__global__ void touch(int* sink) {
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(sink, 1);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "kernels";
  constexpr int kSteps = 4000;
  if (const cudaError_t e = cudaFree(nullptr); e != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device: %s\n", cudaGetErrorString(e));
    return 1;
  }
  cuptiActivityRegisterCallbacks(requested, completed);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  if (mode == "all_api") {
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
  } else if (mode != "kernels") {
    std::fprintf(stderr, "mode: kernels or all_api\n");
    return 2;
  }
  int* sink = nullptr;
  cudaMalloc(&sink, 64);
  cudaStream_t streams[3];
  for (auto& s : streams) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  std::mutex turn;
  int step = 0;  // the host order, shared by both threads
  auto launcher = [&](int me) {
    for (;;) {
      std::lock_guard<std::mutex> lock(turn);
      if (step >= kSteps) return;
      if (step % 2 != me) continue;                                    // the other thread's turn
      if (step % 8 == 0) cudaMemsetAsync(sink + 8, 0, 4, streams[2]);  // a window marker
      touch<<<step % kOrder + 1, 32, 0, streams[me]>>>(sink);
      ++step;
    }
  };
  std::thread a(launcher, 0), b(launcher, 1);
  a.join();
  b.join();
  cudaDeviceSynchronize();
  cuptiActivityFlushAll(1);

  std::lock_guard<std::mutex> lock(g_records_mutex);
  std::sort(g_records.begin(), g_records.end(),
            [](const Record& x, const Record& y) { return x.correlation < y.correlation; });
  // Host order: marker (if step % 8 == 0) then kernel of grid step % kOrder + 1, for step = 0, 1, ...
  std::vector<int> expected;
  for (int s = 0; s < kSteps; ++s) {
    if (s % 8 == 0) expected.push_back(kOrder + 1);
    expected.push_back(s % kOrder + 1);
  }
  std::size_t zero_ids = 0, order_breaks = 0, id_gaps = 0;
  for (std::size_t i = 0; i < g_records.size(); ++i) {
    zero_ids += g_records[i].correlation == 0;
    if (i < expected.size() && g_records[i].order != expected[i]) ++order_breaks;
    if (i > 0 && g_records[i].correlation > g_records[i - 1].correlation + 1) ++id_gaps;
  }
  std::printf(
      "{\"mode\": \"%s\", \"records\": %zu, \"expected\": %zu, \"zero_ids\": %zu, \"order_breaks\": %zu, "
      "\"id_gaps\": %zu, \"first_id\": %u, \"last_id\": %u}\n",
      mode.c_str(), g_records.size(), expected.size(), zero_ids, order_breaks, id_gaps,
      g_records.empty() ? 0u : g_records.front().correlation,
      g_records.empty() ? 0u : g_records.back().correlation);
  return 0;
}
