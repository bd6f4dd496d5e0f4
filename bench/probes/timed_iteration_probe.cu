// Standalone probe (not part of the build): the host cost of one timed iteration as the
// CUDA backend makes it (poison the output, flush L2 with a 120 MB memset, wait, CUPTI
// timestamp, two events around a small kernel, device synchronisation), with CUPTI's
// activity records on, and the same with one step left out or a fill kernel in place of
// the memset; then the device time of a 120 MB flush. Build and run on the GPU machine:
//   nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -I/usr/local/cuda/extras/CUPTI/include \
//     -L/usr/local/cuda/extras/CUPTI/lib64 -o timed_iteration_probe \
//     bench/probes/timed_iteration_probe.cu -lcupti
//   ./timed_iteration_probe
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
static void CUPTIAPI req(uint8_t** b, size_t* s, size_t* m) {
  *b = (uint8_t*)aligned_alloc(8, 1 << 20);
  *s = 1 << 20;
  *m = 0;
}
static void CUPTIAPI done(CUcontext, uint32_t, uint8_t* b, size_t, size_t) { free(b); }
__global__ void kern(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.f;
}
__global__ void fill4(uint4* p, size_t n, uint4 v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = v;
}
using C = std::chrono::steady_clock;
int main() {
  const size_t flush_bytes = 120ull << 20;
  int n = 128 * 64;
  float *x, *y;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&y, n * 4);
  void* big;
  cudaMalloc(&big, flush_bytes);
  cudaStream_t ks, hs;
  cudaStreamCreateWithFlags(&ks, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&hs, cudaStreamNonBlocking);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cuptiActivityRegisterCallbacks(req, done);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  const char* names[] = {"current",      "no-leading-sync",           "no-poison-memset",   "no-events",
                         "kernel-flush", "kernel-flush+poison-in-it", "no-cupti-timestamps"};
  for (int variant = 0; variant < 7; ++variant) {
    std::vector<double> per;
    for (int rep = 0; rep < 5; ++rep) {
      auto t0 = C::now();
      for (int it = 0; it < 150; ++it) {
        if (variant != 1) cudaDeviceSynchronize();
        if (variant != 2 && variant != 5) cudaMemsetAsync(y, 0xff, n * 4, hs);
        if (variant >= 4 && variant <= 5)
          fill4<<<132 * 4, 512, 0, hs>>>((uint4*)big, flush_bytes / 16, make_uint4(0, 0, 0, 0));
        else
          cudaMemsetAsync(big, 0, flush_bytes, hs);
        cudaStreamSynchronize(hs);
        uint64_t ts;
        if (variant != 6) cuptiGetTimestamp(&ts);
        if (variant != 3) cudaEventRecord(e0, ks);
        kern<<<(n + 255) / 256, 256, 0, ks>>>(x, y, n);
        if (variant != 3) cudaEventRecord(e1, ks);
        cudaDeviceSynchronize();
        if (variant != 6) cuptiGetTimestamp(&ts);
      }
      per.push_back(std::chrono::duration<double, std::micro>(C::now() - t0).count() / 150);
      cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    }
    std::sort(per.begin(), per.end());
    printf("%-28s %6.1f us per iteration (median of 5 x 150)\n", names[variant], per[2]);
  }
  // device time of the flush alone
  for (int kind = 0; kind < 2; ++kind) {
    cudaEventRecord(e0, hs);
    for (int i = 0; i < 100; ++i) {
      if (kind)
        fill4<<<132 * 4, 512, 0, hs>>>((uint4*)big, flush_bytes / 16, make_uint4(0, 0, 0, 0));
      else
        cudaMemsetAsync(big, 0, flush_bytes, hs);
    }
    cudaEventRecord(e1, hs);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    printf("%s: %.1f us device per 120 MB flush\n", kind ? "fill kernel" : "memset", ms * 10);
  }
  return 0;
}
