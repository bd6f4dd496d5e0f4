// Shared by the tvm-ffi test solutions for rmsnorm_h128 (C++, the CPU backend): written
// as flashinfer-bench's tvm-ffi solutions are, against apache-tvm-ffi's headers only.
#pragma once
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cmath>
#include <cstdint>
#include <cstring>

inline float bf16_to_float(uint16_t v) {
  uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (std::isnan(f)) return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

// y = x * rsqrt(mean(x^2) + 1e-5) * w, row by row.
inline void rmsnorm_rows(tvm::ffi::TensorView x_t, tvm::ffi::TensorView w_t, tvm::ffi::TensorView y_t) {
  TVM_FFI_ICHECK_EQ(x_t.ndim(), 2) << "hidden_states must be 2-D";
  TVM_FFI_ICHECK(x_t.dtype().code == kDLBfloat && x_t.dtype().bits == 16) << "hidden_states must be bfloat16";
  const int64_t rows = x_t.size(0);
  const int64_t cols = x_t.size(1);
  const auto* x = static_cast<const uint16_t*>(x_t.data_ptr());
  const auto* w = static_cast<const uint16_t*>(w_t.data_ptr());
  auto* y = static_cast<uint16_t*>(y_t.data_ptr());
  for (int64_t r = 0; r < rows; ++r) {
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = bf16_to_float(x[r * cols + c]);
      sum += v * v;
    }
    const float inv = 1.0f / std::sqrt(sum / static_cast<float>(cols) + 1e-5f);
    for (int64_t c = 0; c < cols; ++c)
      y[r * cols + c] = float_to_bf16(bf16_to_float(x[r * cols + c]) * inv * bf16_to_float(w[c]));
  }
}
