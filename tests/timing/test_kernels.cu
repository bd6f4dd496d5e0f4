#include <cstdint>
#include <stdexcept>
#include <string>

#include "test_kernels.h"

namespace kh::test {

namespace {

__device__ std::uint64_t global_timer_ns() {
  std::uint64_t t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel(std::uint64_t nanoseconds) {
  const std::uint64_t begin = global_timer_ns();
  while (global_timer_ns() - begin < nanoseconds) {
  }
}

__global__ void empty_kernel() {}

__global__ void read_kernel(const float* data, std::size_t n, float* out) {
  float sum = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    sum += data[i];
  }
  // Conditional store: the reads cannot be optimised away, and almost never write.
  if (sum == 123456.0f) *out = sum;
}

__global__ void illegal_write_kernel(int* address) { *address = 1; }

void check_launch(const char* what) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

}  // namespace

void launch_spin(cudaStream_t stream, double microseconds) {
  spin_kernel<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(microseconds * 1000.0));
  check_launch("spin_kernel");
}

void launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  check_launch("empty_kernel");
}

void launch_read(const float* data, std::size_t n, float* out, cudaStream_t stream) {
  read_kernel<<<264, 512, 0, stream>>>(data, n, out);
  check_launch("read_kernel");
}

void launch_illegal_write(cudaStream_t stream) {
  // An address in the first page, which CUDA never maps.
  illegal_write_kernel<<<1, 1, 0, stream>>>(reinterpret_cast<int*>(0x100));
  check_launch("illegal_write_kernel");
}

}  // namespace kh::test
