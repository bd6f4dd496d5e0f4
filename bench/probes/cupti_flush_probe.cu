// Standalone probe (not part of the build): what the first CUDA operations cost after
// cuptiActivityEnable and after a forced cuptiActivityFlushAll, by record-buffer size and
// reuse. Build and run on the GPU machine:
//   nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -I/usr/local/cuda/extras/CUPTI/include \
//     -L/usr/local/cuda/extras/CUPTI/lib64 -o cupti_flush_probe bench/probes/cupti_flush_probe.cu -lcupti
//   LD_LIBRARY_PATH=/usr/local/cuda/extras/CUPTI/lib64 ./cupti_flush_probe
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>
using Clk = std::chrono::steady_clock;
static size_t g_size = 1 << 20;
static bool g_pool = true;
static bool g_touch = false;
static std::mutex mu;
static std::vector<uint8_t*> pool;
static int requests = 0;
void CUPTIAPI req(uint8_t** b, size_t* s, size_t* m) {
  std::lock_guard<std::mutex> l(mu);
  ++requests;
  if (g_pool && !pool.empty()) {
    *b = pool.back();
    pool.pop_back();
  } else {
    *b = (uint8_t*)aligned_alloc(8, g_size);
    if (g_touch) memset(*b, 0, g_size);
  }
  *s = g_size;
  *m = 0;
}
void CUPTIAPI done(CUcontext, uint32_t, uint8_t* b, size_t, size_t) {
  std::lock_guard<std::mutex> l(mu);
  if (g_pool && pool.size() < 4)
    pool.push_back(b);
  else
    free(b);
}
__global__ void k(float* x) {
  if (threadIdx.x == 0) x[0] += 1;
}
static double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
int main() {
  float* d;
  cudaMalloc(&d, 1 << 20);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  std::vector<uint64_t> host(1000);
  auto op = [&] {
    k<<<1, 32, 0, s>>>(d);
    cudaMemcpyAsync(host.data(), d, 8000, cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
  };
  auto us = [](Clk::time_point t) {
    return std::chrono::duration<double, std::micro>(Clk::now() - t).count();
  };
  for (int i = 0; i < 5; ++i) op();
  {
    std::vector<double> v;
    for (int i = 0; i < 50; ++i) {
      auto t = Clk::now();
      op();
      v.push_back(us(t));
    }
    printf("no cupti: op %.1f us\n", med(v));
  }
  cuptiActivityRegisterCallbacks(req, done);
  for (auto kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET})
    cuptiActivityEnable(kind);
  {
    auto t = Clk::now();
    op();
    printf("first op after enable: %.1f us\n", us(t));
  }
  struct V {
    size_t size;
    bool pool, touch;
  };
  for (V v : {V{8 << 20, false, false}, V{1 << 20, false, false}, V{1 << 20, true, false},
              V{64 << 10, true, false}, V{1 << 20, false, true}, V{8 << 20, true, false}}) {
    g_size = v.size;
    g_pool = v.pool;
    g_touch = v.touch;
    {
      std::lock_guard<std::mutex> l(mu);
      for (auto* b : pool) free(b);
      pool.clear();
    }
    std::vector<double> first, second, flush, steady;
    requests = 0;
    for (int i = 0; i < 30; ++i) {
      for (int j = 0; j < 20; ++j) op();
      auto t = Clk::now();
      op();
      steady.push_back(us(t));
      t = Clk::now();
      cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      flush.push_back(us(t));
      t = Clk::now();
      op();
      first.push_back(us(t));
      t = Clk::now();
      op();
      second.push_back(us(t));
    }
    printf(
        "buffer %zu KB pool %d touch %d: steady op %.1f us, forced flush %.1f us, first op after %.1f us, "
        "second %.1f us, buffer requests %d\n",
        v.size >> 10, v.pool, v.touch, med(steady), med(flush), med(first), med(second), requests);
  }
  return 0;
}
