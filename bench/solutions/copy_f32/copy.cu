// The benchmark's candidate for copy_f32: 16-byte loads and stores, one per thread,
// then the remainder one float per thread. For n = 1 that is a single one-thread
// kernel that writes the one output: the least work a correct solution can do.
#include <kharness/kernel.h>

namespace {

__global__ void copy_vectors(const float4* x, float4* y, int64_t vectors) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < vectors) y[i] = x[i];
}

__global__ void copy_rest(const float* x, float* y, int64_t begin, int64_t n) {
  const int64_t i = begin + threadIdx.x;
  if (i < n) y[i] = x[i];
}

}  // namespace

void copy(const DLTensor* x, DLTensor* y, kh_stream_t stream) {
  const int64_t n = kh_numel(x);
  const int64_t vectors = n / 4;  // harness buffers come from cudaMalloc: 256-byte aligned
  const auto* in = static_cast<const float*>(x->data);
  auto* out = static_cast<float*>(y->data);
  if (vectors > 0) {
    copy_vectors<<<static_cast<unsigned>((vectors + 255) / 256), 256, 0, stream>>>(
        reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), vectors);
  }
  if (n > vectors * 4) copy_rest<<<1, 4, 0, stream>>>(in, out, vectors * 4, n);
}
