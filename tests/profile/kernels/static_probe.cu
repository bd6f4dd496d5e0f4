// Kernels with known machine-code traits, for the static-analysis tests: built here by
// nvcc, then read back with ptxas's report and cuobjdump.
#include <mma.h>

// 128-bit loads and stores.
__global__ void wide_copy(const float4* in, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// 32-bit loads only.
__global__ void narrow_copy(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f;
}

// Bulk data through 16-byte asynchronous copies (LDGSTS.128), one scalar load beside them (a
// scale): its narrow LDG is not how the bytes move.
__global__ void async_stream(const float4* in, const float* scale, float* out, int n) {
  __shared__ float4 tile[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&tile[threadIdx.x]));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(in + i));
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  const float4 v = tile[threadIdx.x];
  if (i < n) out[i] = (v.x + v.y + v.z + v.w) * scale[blockIdx.x];
}

// An array indexed at run time: local memory, and a barrier.
__global__ void indexed_local(float* data, int k) {
  float buf[256];
  for (int i = 0; i < 256; ++i) buf[i] = data[i * k + threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = buf[(threadIdx.x * k) & 255];
}

// Many live accumulators under a 32-register cap (launch bounds): spills.
__global__ void __launch_bounds__(256, 8) spilling(const float* in, float* out) {
  float acc[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) acc[i] = in[threadIdx.x + i * 128];
#pragma unroll
  for (int r = 0; r < 8; ++r) {
#pragma unroll
    for (int i = 0; i < 96; ++i) acc[i] = acc[i] * acc[(i + 1) % 96] + in[i];
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < 96; ++i) s += acc[i];
  out[threadIdx.x] = s;
}

// Warp-level tensor-core MMA (HMMA).
__global__ void tensor_core(const half* a, const half* b, float* c) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
