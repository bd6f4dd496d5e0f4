// The device's float16 encoder (one cvt instruction, tensor/portable/float_encode_steps.h)
// gives the host's codes: at every float16 value, at every midpoint between two of them
// (where rounding to nearest even decides), one float32 step either side of both, and at
// the edges (zeros, float32 subnormals, the overflow to infinity, infinities, NaNs).
// Label gpu: skips without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/cuda_call.h"
#include "gpu_required.h"
#include "tensor/float_formats.h"
#include "tensor/portable/float_encode_steps.h"

namespace kh {
namespace {

__global__ void encode_on_device(const float* in, std::uint16_t* out, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) out[i] = detail::encode_f16(in[i]);
}

std::vector<float> probe_values() {
  std::vector<float> v;
  const auto around = [&](float x) {
    v.push_back(x);
    v.push_back(std::nextafter(x, std::numeric_limits<float>::infinity()));
    v.push_back(std::nextafter(x, -std::numeric_limits<float>::infinity()));
  };
  for (std::uint32_t code = 0; code < 0x7C00; ++code) {
    const float here = f16_to_float(static_cast<std::uint16_t>(code));
    const float next = f16_to_float(static_cast<std::uint16_t>(code + 1));
    around(here);
    around(here + (next - here) / 2);  // exact in float32: 11 significant bits and one more
  }
  around(65520.0f);  // halfway past the largest float16: rounds to infinity
  for (float x : {std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
                  std::numeric_limits<float>::max(), std::numeric_limits<float>::infinity()})
    around(x);
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  const std::size_t positive = v.size();
  for (std::size_t i = 0; i < positive; ++i) v.push_back(-v[i]);
  return v;
}

TEST(CudaFloatEncode, Float16OnTheDeviceIsTheHostEncoder) {
  KH_REQUIRE_GPU();
  const std::vector<float> values = probe_values();
  const std::size_t n = values.size();
  float* in = nullptr;
  std::uint16_t* out = nullptr;
  KH_CUDA_CALL(cudaMalloc(&in, n * sizeof(float)));
  KH_CUDA_CALL(cudaMalloc(&out, n * sizeof(std::uint16_t)));
  KH_CUDA_CALL(cudaMemcpy(in, values.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  encode_on_device<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in, out, n);
  KH_CUDA_CALL(cudaGetLastError());
  std::vector<std::uint16_t> device(n);
  KH_CUDA_CALL(cudaMemcpy(device.data(), out, n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
  KH_CUDA_CALL(cudaFree(in));
  KH_CUDA_CALL(cudaFree(out));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint16_t host = detail::encode_f16(values[i]);
    if (device[i] != host && ++wrong <= 10)
      ADD_FAILURE() << "encode_f16(" << values[i] << "): device 0x" << std::hex << device[i] << ", host 0x"
                    << host;
  }
  EXPECT_EQ(wrong, 0u) << "of " << n << " values";
}

}  // namespace
}  // namespace kh
