// Standalone probe (not part of the build): which CUDA call pays the cost CUPTI charges
// after a forced cuptiActivityFlushAll, for three record-buffer sizes. Each round runs 60
// iterations of (a 120 MB memset, a one-warp kernel, a stream sync), forces a flush, then
// times one call of the kind named, then a 4-byte device-to-host copy. Build and run on
// the GPU machine:
//   nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -I/usr/local/cuda/extras/CUPTI/include \
//     -L/usr/local/cuda/extras/CUPTI/lib64 -o cupti_first_call_probe \
//     bench/probes/cupti_first_call_probe.cu -lcupti
//   ./cupti_first_call_probe
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
static size_t g_bytes = 1 << 20;
static void CUPTIAPI req(uint8_t** b, size_t* s, size_t* m) {
  *b = (uint8_t*)aligned_alloc(8, g_bytes);
  *s = g_bytes;
  *m = 0;
}
static void CUPTIAPI done(CUcontext, uint32_t, uint8_t* b, size_t, size_t) { free(b); }
__global__ void k(float* p) {
  if (p) p[threadIdx.x] += 1;
}
using C = std::chrono::steady_clock;
static double us(C::time_point a) { return std::chrono::duration<double, std::micro>(C::now() - a).count(); }
int main() {
  float* d;
  cudaMalloc(&d, 1 << 20);
  float* h;
  cudaMallocHost(&h, 4096);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  void* big;
  cudaMalloc(&big, 120 << 20);
  cuptiActivityRegisterCallbacks(req, done);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  const char* names[] = {"streamQuery", "eventRecord+sync", "memset4+sync", "memcpyD2H4",
                         "deviceSync",  "launch+sync",      "nothing"};
  for (size_t bytes : {size_t(1) << 20, size_t(256) << 10, size_t(64) << 10}) {
    g_bytes = bytes;
    cudaEvent_t e;
    cudaEventCreate(&e);
    for (int variant = 0; variant < 7; ++variant) {
      std::vector<double> first, second, flush, loop;
      for (int rep = 0; rep < 30; ++rep) {
        auto t0 = C::now();
        for (int i = 0; i < 60; ++i) {
          cudaMemsetAsync(big, 0, 120 << 20, s);
          k<<<1, 32, 0, s>>>(d);
          cudaStreamSynchronize(s);
        }
        loop.push_back(us(t0));
        auto t = C::now();
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        flush.push_back(us(t));
        t = C::now();
        switch (variant) {
          case 0:
            cudaStreamQuery(s);
            break;
          case 1:
            cudaEventRecord(e, s);
            cudaEventSynchronize(e);
            break;
          case 2:
            cudaMemsetAsync(d, 0, 4, s);
            cudaStreamSynchronize(s);
            break;
          case 3:
            cudaMemcpy(h, d, 4, cudaMemcpyDeviceToHost);
            break;
          case 4:
            cudaDeviceSynchronize();
            break;
          case 5:
            k<<<1, 32, 0, s>>>(d);
            cudaStreamSynchronize(s);
            break;
          case 6:
            break;
        }
        first.push_back(us(t));
        t = C::now();
        cudaMemcpy(h, d, 4, cudaMemcpyDeviceToHost);
        second.push_back(us(t));
      }
      auto med = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      printf("buf %7zu  %-18s flush %7.1f  first %7.1f  then memcpy %7.1f  loop60 %8.1f us\n", bytes,
             names[variant], med(flush), med(first), med(second), med(loop));
    }
  }
  // Plain memcpy baseline without a flush
  std::vector<double> base;
  for (int rep = 0; rep < 30; ++rep) {
    auto t = C::now();
    cudaMemcpy(h, d, 4, cudaMemcpyDeviceToHost);
    base.push_back(us(t));
  }
  std::sort(base.begin(), base.end());
  printf("memcpy with no flush before: %.1f us\n", base[15]);
  return 0;
}
