// Standalone probe (not part of the build): what an L2 flush costs on this GPU, and whether
// a faster one evicts as well. Build and run on the GPU machine:
//   nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o l2_flush_probe bench/probes/l2_flush_probe.cu &&
//   ./l2_flush_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#define CK(x)                                        \
  do {                                               \
    cudaError_t e = (x);                             \
    if (e != cudaSuccess) {                          \
      printf("%s: %s\n", #x, cudaGetErrorString(e)); \
      return 1;                                      \
    }                                                \
  } while (0)
using Clk = std::chrono::steady_clock;
__global__ void fill16(uint4* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = make_uint4(0, 0, 0, 0);
}
__global__ void read_sum(const float4* p, size_t n, float* out) {
  float s = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = p[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 12345.f) *out = s;
}
__global__ void empty() {}
static double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
int main() {
  cudaDeviceProp pr;
  CK(cudaGetDeviceProperties(&pr, 0));
  size_t bytes = 2 * (size_t)pr.l2CacheSize;
  printf("device %s l2 %d flush %zu\n", pr.name, pr.l2CacheSize, bytes);
  void* buf;
  CK(cudaMalloc(&buf, bytes));
  void* small;
  CK(cudaMalloc(&small, 4096));
  float* data;
  size_t dbytes = 16u << 20;
  CK(cudaMalloc(&data, dbytes));
  CK(cudaMemset(data, 0, dbytes));
  float* out;
  CK(cudaMalloc(&out, 4));
  cudaStream_t hk, ks;
  CK(cudaStreamCreateWithFlags(&hk, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&ks, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  auto gpu_ms = [&](auto&& f, int reps) {
    std::vector<double> v;
    for (int i = 0; i < reps; ++i) {
      cudaEventRecord(a, hk);
      f();
      cudaEventRecord(b, hk);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      v.push_back(ms * 1e3);
    }
    return med(v);
  };
  for (int g : {0, 132, 264, 528, 1056, 2112}) {
    if (g == 0)
      printf("memset 2xL2: %.1f us\n", gpu_ms([&] { cudaMemsetAsync(buf, 0, bytes, hk); }, 100));
    else
      for (int t : {256, 512, 1024})
        printf("fill16 grid %d x %d: %.1f us\n", g, t,
               gpu_ms([&] { fill16<<<g, t, 0, hk>>>((uint4*)buf, bytes / 16); }, 100));
  }
  // Eviction: read 16 MB after each kind of flush.
  auto read = [&] { read_sum<<<528, 512, 0, hk>>>((const float4*)data, dbytes / 16, out); };
  std::vector<double> warm, cold_memset, cold_fill, cold_half;
  for (int i = 0; i < 50; ++i) {
    read();
    warm.push_back(gpu_ms(read, 1));
    cudaMemsetAsync(buf, 0, bytes, hk);
    cold_memset.push_back(gpu_ms(read, 1));
    fill16<<<1056, 512, 0, hk>>>((uint4*)buf, bytes / 16);
    cold_fill.push_back(gpu_ms(read, 1));
    cudaMemsetAsync(buf, 0, bytes / 2, hk);
    cold_half.push_back(gpu_ms(read, 1));
  }
  printf("read 16MB: warm %.1f us, after memset 2xL2 %.1f, after fill16 2xL2 %.1f, after memset 1xL2 %.1f\n",
         med(warm), med(cold_memset), med(cold_fill), med(cold_half));
  // Host round trips per call, as the timed loop makes them.
  auto host_us = [&](auto&& f, int reps) {
    std::vector<double> v;
    for (int i = 0; i < reps; ++i) {
      auto t = Clk::now();
      f();
      v.push_back(std::chrono::duration<double, std::micro>(Clk::now() - t).count());
    }
    return med(v);
  };
  printf("per call, current (sync, poison, flush, stream sync, launch, record, 2 syncs): %.1f us\n",
         host_us(
             [&] {
               cudaDeviceSynchronize();
               cudaMemsetAsync(small, 0xFF, 4096, hk);
               cudaMemsetAsync(buf, 0, bytes, hk);
               cudaStreamSynchronize(hk);
               cudaEventRecord(a, ks);
               empty<<<1, 1, 0, ks>>>();
               cudaEventRecord(b, ks);
               cudaDeviceSynchronize();
               cudaDeviceSynchronize();
             },
             200));
  printf("per call, flush only (memset + stream sync): %.1f us\n", host_us(
                                                                       [&] {
                                                                         cudaMemsetAsync(buf, 0, bytes, hk);
                                                                         cudaStreamSynchronize(hk);
                                                                       },
                                                                       200));
  printf("per call, fill16 flush + stream sync: %.1f us\n", host_us(
                                                                [&] {
                                                                  fill16<<<1056, 512, 0, hk>>>((uint4*)buf,
                                                                                               bytes / 16);
                                                                  cudaStreamSynchronize(hk);
                                                                },
                                                                200));
  printf("per call, launch + sync only: %.1f us\n", host_us(
                                                        [&] {
                                                          empty<<<1, 1, 0, ks>>>();
                                                          cudaDeviceSynchronize();
                                                        },
                                                        200));
  printf("per call, idle device sync: %.1f us\n", host_us([&] { cudaDeviceSynchronize(); }, 200));
  printf("per call, overlapped (flush on ks, launch, sync): %.1f us\n",
         host_us(
             [&] {
               cudaMemsetAsync(small, 0xFF, 4096, ks);
               cudaMemsetAsync(buf, 0, bytes, ks);
               cudaEventRecord(a, ks);
               empty<<<1, 1, 0, ks>>>();
               cudaEventRecord(b, ks);
               cudaDeviceSynchronize();
             },
             200));
  return 0;
}
