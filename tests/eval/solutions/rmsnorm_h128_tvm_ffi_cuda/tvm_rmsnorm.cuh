// Shared by the tvm-ffi CUDA test solutions for rmsnorm_h128: written as flashinfer-bench's
// tvm-ffi solutions are (apache-tvm-ffi headers only, the stream from the environment).
// One warp per row, fp32 accumulation; each cheat differs from correct.cu in its cheat.
#pragma once

#include <cuda_bf16.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>

constexpr int kRowsPerBlock = 4;

__global__ void rmsnorm_rows_kernel(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                                    int64_t rows, int64_t cols) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const __nv_bfloat16* in = x + row * cols;
  float sum = 0.f;
  for (int64_t c = lane; c < cols; c += 32) {
    const float v = __bfloat162float(in[c]);
    sum += v * v;
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  const float inv_rms = rsqrtf(sum / static_cast<float>(cols) + 1e-5f);
  for (int64_t c = lane; c < cols; c += 32)
    y[row * cols + c] = __float2bfloat16(__bfloat162float(in[c]) * inv_rms * __bfloat162float(w[c]));
}

inline cudaStream_t env_stream(const tvm::ffi::TensorView& t) {
  return static_cast<cudaStream_t>(TVMFFIEnvGetStream(t.device().device_type, t.device().device_id));
}

inline void launch_rmsnorm(tvm::ffi::TensorView x, tvm::ffi::TensorView w, tvm::ffi::TensorView y,
                           cudaStream_t stream) {
  TVM_FFI_ICHECK_EQ(x.ndim(), 2) << "hidden_states must be 2-D";
  TVM_FFI_ICHECK_EQ(x.device().device_type, kDLCUDA) << "tensors must be on the GPU";
  const int64_t rows = x.size(0);
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  rmsnorm_rows_kernel<<<blocks, 32 * kRowsPerBlock, 0, stream>>>(
      static_cast<const __nv_bfloat16*>(x.data_ptr()), static_cast<const __nv_bfloat16*>(w.data_ptr()),
      static_cast<__nv_bfloat16*>(y.data_ptr()), rows, x.size(1));
  const cudaError_t rc = cudaGetLastError();
  TVM_FFI_ICHECK(rc == cudaSuccess) << cudaGetErrorString(rc);
}
