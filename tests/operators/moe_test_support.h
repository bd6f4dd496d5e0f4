// Shared by the MoE operator tests: the operator's definition and workloads, generated
// inputs, and direct calls of the CPU reference compiled into the test.
#pragma once

#include <dlpack/dlpack.h>
#include <kharness/kernel.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "eval/input_generator.h"
#include "eval/operator_library.h"
#include "tensor/element_access.h"
#include "tensor/host_tensor.h"

void moe_reference(const DLTensor* routing_logits, const DLTensor* routing_bias,
                   const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                   const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                   const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                   int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                   kh_stream_t stream);

namespace kh::moe_test {

inline constexpr char kName[] = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048";
inline constexpr int kHidden = 7168;
inline constexpr int kIntermediate = 2048;
inline constexpr int kExperts = 256;
inline constexpr int kLocal = 32;

// Input positions in definition order.
enum Input : std::size_t {
  kLogits,
  kBias,
  kHidden_,
  kHiddenScale,
  kW13,
  kW13Scale,
  kW2,
  kW2Scale,
  kOffset,
  kScaling
};

inline const OperatorLibrary& library() {
  static const OperatorLibrary lib =
      OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  return lib;
}

inline const OperatorEntry& entry() { return *library().find(kName); }

// The first CI workload with its seq_len and local_expert_offset replaced.
inline Workload workload(std::int64_t seq_len, int offset) {
  Workload w = library().workloads(kName, true).front();
  w.axes.items.at(0).second = seq_len;
  for (auto& [name, input] : w.inputs.items)
    if (name == "local_expert_offset") input.source = ScalarInput{offset};
  return w;
}

inline std::vector<HostTensor> generate(const Workload& w, std::uint64_t seed) {
  return make_inputs(entry().definition, w, seed, entry().dir);
}

// Calls the CPU reference on `in` (ten inputs in definition order); bf16 [T, H] result.
inline HostTensor reference_output(std::vector<HostTensor>& in) {
  HostTensor out(DType::bfloat16, {in[kLogits].shape()[0], in[kHidden_].shape()[1]});
  std::vector<DLTensor> v;
  for (std::size_t i = 0; i < kOffset; ++i) v.push_back(in[i].dlpack_view());
  DLTensor o = out.dlpack_view();
  moe_reference(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
                static_cast<std::int32_t>(read_as_double(in[kOffset], 0)),
                static_cast<float>(read_as_double(in[kScaling], 0)), &o, nullptr);
  return out;
}

}  // namespace kh::moe_test

namespace kh::moe_test {

// A problem with the definition's routing (256 experts in 8 groups, 32 local) but
// H = 256 and I = 128, and weights built so that the output reveals the routing:
// every hidden code is 1.0, so with a = the token's two activation scales,
//   X1 = (a0 + a1) * (le + 1) / 2,  X2 = -(a0 + a1) / 2   for local expert le,
// and W2 of expert le is 1/128 on output column le only, so
//   output[t, le] = weight(t, le) * silu(X2) * X1   and every other column is 0.
inline constexpr int kSmallHidden = 256;
inline constexpr int kSmallInter = 128;

// `hidden_scale` is [2, T] (the definition's transposed layout).
inline std::vector<HostTensor> small_problem(const std::vector<float>& logits,
                                             const std::vector<std::uint16_t>& bias,
                                             const std::vector<float>& hidden_scale, int offset,
                                             float scaling) {
  const auto tokens = static_cast<std::int64_t>(logits.size() / kExperts);
  std::vector<HostTensor> in;
  in.emplace_back(DType::float32, std::vector<std::int64_t>{tokens, kExperts});
  in.emplace_back(DType::bfloat16, std::vector<std::int64_t>{kExperts});
  in.emplace_back(DType::float8_e4m3fn, std::vector<std::int64_t>{tokens, kSmallHidden});
  in.emplace_back(DType::float32, std::vector<std::int64_t>{2, tokens});
  in.emplace_back(DType::float8_e4m3fn, std::vector<std::int64_t>{kLocal, 2 * kSmallInter, kSmallHidden});
  in.emplace_back(DType::float32, std::vector<std::int64_t>{kLocal, 2, 2});
  in.emplace_back(DType::float8_e4m3fn, std::vector<std::int64_t>{kLocal, kSmallHidden, kSmallInter});
  in.emplace_back(DType::float32, std::vector<std::int64_t>{kLocal, 2, 1});
  in.push_back(HostTensor::scalar(DType::int32));
  in.push_back(HostTensor::scalar(DType::float32));
  std::copy(logits.begin(), logits.end(), in[kLogits].as<float>().begin());
  std::copy(bias.begin(), bias.end(), in[kBias].as<std::uint16_t>().begin());
  std::copy(hidden_scale.begin(), hidden_scale.end(), in[kHiddenScale].as<float>().begin());
  constexpr std::uint8_t kOne = 0x38, kMinusOne = 0xB8;  // e4m3fn codes of 1.0 and -1.0
  for (auto& c : in[kHidden_].as<std::uint8_t>()) c = kOne;
  auto w13 = in[kW13].as<std::uint8_t>();
  auto s13 = in[kW13Scale].as<float>();
  auto w2 = in[kW2].as<std::uint8_t>();
  auto s2 = in[kW2Scale].as<float>();
  for (int le = 0; le < kLocal; ++le) {
    for (int r = 0; r < 2 * kSmallInter; ++r)
      for (int h = 0; h < kSmallHidden; ++h)
        w13[(static_cast<std::size_t>(le) * 2 * kSmallInter + r) * kSmallHidden + h] =
            r < kSmallInter ? kOne : kMinusOne;
    for (int b = 0; b < 2; ++b) {
      s13[(le * 2 + 0) * 2 + b] = static_cast<float>(le + 1) / 256.0f;  // X1 rows
      s13[(le * 2 + 1) * 2 + b] = 1.0f / 256.0f;                        // X2 rows
      s2[le * 2 + b] = 1.0f / 128.0f;
    }
    for (int i = 0; i < kSmallInter; ++i)
      w2[(static_cast<std::size_t>(le) * kSmallHidden + le) * kSmallInter + i] = kOne;
  }
  write_from_double(in[kOffset], 0, offset);
  write_from_double(in[kScaling], 0, scaling);
  return in;
}

// silu(X2) * X1 of small_problem for local expert `le` and activation scales a0, a1.
inline double small_swiglu(int le, double a0, double a1) {
  const double x1 = (a0 + a1) * (le + 1) / 2.0, x2 = -(a0 + a1) / 2.0;
  return x2 / (1.0 + std::exp(-x2)) * x1;
}

}  // namespace kh::moe_test
