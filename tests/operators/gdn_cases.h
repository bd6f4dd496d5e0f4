// Test support for the gated delta rule operators: their C++ entry points, tensors in
// definition order built by hand or by the harness's generator, and an independent
// float64 model of the rule written from the definition's math.
#pragma once

#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "eval/input_generator.h"
#include "eval/operator_library.h"
#include "tensor/element_access.h"
#include "tensor/float_formats.h"
#include "tensor/host_tensor.h"

// operators/gdn_*/{reference,baseline}.cpp, compiled into the test.
void gdn_decode_reference(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                          const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                          const DLTensor* b, float scale, DLTensor* output, DLTensor* new_state,
                          kh_stream_t stream);
void gdn_decode_baseline(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                         const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias, const DLTensor* b,
                         float scale, DLTensor* output, DLTensor* new_state, kh_stream_t stream);
void gdn_prefill_reference(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                           const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                           const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                           DLTensor* new_state, kh_stream_t stream);
void gdn_prefill_baseline(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                          const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                          const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                          DLTensor* new_state, kh_stream_t stream);

namespace kh::gdn_test {

inline constexpr const char* kDecode = "gdn_decode_qk4_v8_d128_k_last";
inline constexpr const char* kPrefill = "gdn_prefill_qk4_v8_d128_k_last";
inline constexpr int kDim = 128, kQkHeads = 4, kVHeads = 8;

// Input and output positions, definition order (prefill has cu_seqlens before scale).
enum Input : std::size_t { kQ, kK, kV, kState, kALog, kA, kDtBias, kB, kCuSeqlens };
enum Output : std::size_t { kOut, kNewState };

enum class Op { decode, prefill };
enum class Impl { reference, baseline };

inline const OperatorLibrary& operator_library() {
  static const OperatorLibrary lib =
      OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  return lib;
}

inline std::size_t scale_index(Op op) { return op == Op::decode ? 8 : 9; }

// Zeroed inputs for `tokens` tokens split by `cu` (prefill) or a batch of `tokens` (decode).
inline std::vector<HostTensor> blank_inputs(Op op, std::int64_t tokens,
                                            const std::vector<std::int64_t>& cu = {}) {
  const bool d = op == Op::decode;
  const std::int64_t seqs = d ? tokens : static_cast<std::int64_t>(cu.size()) - 1;
  auto per_token = [&](std::vector<std::int64_t> tail) {
    std::vector<std::int64_t> shape{tokens};
    if (d) shape.push_back(1);  // seq_len
    shape.insert(shape.end(), tail.begin(), tail.end());
    return shape;
  };
  std::vector<HostTensor> in;
  in.emplace_back(DType::bfloat16, per_token({kQkHeads, kDim}));
  in.emplace_back(DType::bfloat16, per_token({kQkHeads, kDim}));
  in.emplace_back(DType::bfloat16, per_token({kVHeads, kDim}));
  in.emplace_back(DType::float32, std::vector<std::int64_t>{seqs, kVHeads, kDim, kDim});
  in.emplace_back(DType::float32, std::vector<std::int64_t>{kVHeads});
  in.emplace_back(DType::bfloat16, per_token({kVHeads}));
  in.emplace_back(DType::float32, std::vector<std::int64_t>{kVHeads});
  in.emplace_back(DType::bfloat16, per_token({kVHeads}));
  if (!d) {
    in.emplace_back(DType::int64, std::vector<std::int64_t>{static_cast<std::int64_t>(cu.size())});
    for (std::size_t i = 0; i < cu.size(); ++i) in.back().as<std::int64_t>()[i] = cu[i];
  }
  in.push_back(HostTensor::scalar(DType::float32));
  in.back().as<float>()[0] = static_cast<float>(1.0 / std::sqrt(128.0));
  return in;
}

inline std::vector<HostTensor> blank_outputs(const std::vector<HostTensor>& in) {
  std::vector<HostTensor> out;
  out.emplace_back(DType::bfloat16, in[kV].shape());
  out.emplace_back(DType::float32, in[kState].shape());
  return out;
}

// Runs the C++ reference or baseline on host tensors.
inline void run(Op op, Impl impl, std::vector<HostTensor>& in, std::vector<HostTensor>& out) {
  std::vector<DLTensor> x;
  for (HostTensor& t : in) x.push_back(t.dlpack_view());
  DLTensor o = out[kOut].dlpack_view(), s = out[kNewState].dlpack_view();
  const float scale = in[scale_index(op)].as<float>()[0];
  if (op == Op::decode) {
    auto* fn = impl == Impl::reference ? gdn_decode_reference : gdn_decode_baseline;
    fn(&x[kQ], &x[kK], &x[kV], &x[kState], &x[kALog], &x[kA], &x[kDtBias], &x[kB], scale, &o, &s, nullptr);
  } else {
    auto* fn = impl == Impl::reference ? gdn_prefill_reference : gdn_prefill_baseline;
    fn(&x[kQ], &x[kK], &x[kV], &x[kState], &x[kALog], &x[kA], &x[kDtBias], &x[kB], &x[kCuSeqlens], scale, &o,
       &s, nullptr);
  }
}

inline std::vector<HostTensor> run(Op op, Impl impl, std::vector<HostTensor>& in) {
  std::vector<HostTensor> out = blank_outputs(in);
  run(op, impl, in, out);
  return out;
}

struct Expected {
  std::vector<double> output;     // [tokens][8][V], before bf16 rounding
  std::vector<double> new_state;  // [seqs][8][V][K]
};

// The gated delta rule in float64 on the inputs' exact values, from the math:
//   g = exp(-exp(A_log) softplus(a + dt_bias)), beta = sigmoid(b), S = state^T ([K, V]),
//   S <- g S;  old = k S;  new = beta v + (1 - beta) old;  S <- S + k^T (new - old);
//   out = scale q S.  v head h uses q/k head h / 2; an empty sequence leaves zeros.
inline Expected model(Op op, const std::vector<HostTensor>& in) {
  const std::vector<double> q = to_float64(in[kQ]), k = to_float64(in[kK]), v = to_float64(in[kV]);
  const std::vector<double> state = to_float64(in[kState]), A_log = to_float64(in[kALog]);
  const std::vector<double> a = to_float64(in[kA]), dt_bias = to_float64(in[kDtBias]), b = to_float64(in[kB]);
  const std::int64_t tokens = in[kQ].shape()[0];
  std::vector<std::int64_t> cu;
  if (op == Op::decode) {
    for (std::int64_t i = 0; i <= tokens; ++i) cu.push_back(i);
  } else {
    for (double c : to_float64(in[kCuSeqlens])) cu.push_back(static_cast<std::int64_t>(c));
  }
  double scale = in[scale_index(op)].as<float>()[0];
  if (scale == 0) scale = 1.0 / std::sqrt(static_cast<double>(kDim));
  Expected e{std::vector<double>(static_cast<std::size_t>(tokens * kVHeads * kDim), 0.0),
             std::vector<double>(state.size(), 0.0)};
  const std::int64_t slice = kDim * kDim;
  for (std::size_t n = 0; n + 1 < cu.size(); ++n) {
    if (cu[n + 1] <= cu[n]) continue;
    for (std::int64_t h = 0; h < kVHeads; ++h) {
      double* s = e.new_state.data() + (static_cast<std::int64_t>(n) * kVHeads + h) * slice;  // [V][K]
      for (std::int64_t i = 0; i < slice; ++i)
        s[i] = state[static_cast<std::size_t>((static_cast<std::int64_t>(n) * kVHeads + h) * slice + i)];
      for (std::int64_t t = cu[n]; t < cu[n + 1]; ++t) {
        const std::int64_t vh = t * kVHeads + h, qkh = t * kQkHeads + h / 2;
        const double x = a[vh] + dt_bias[h];
        const double g = std::exp(-std::exp(A_log[h]) * (x > 20 ? x : std::log1p(std::exp(x))));
        const double beta = 1.0 / (1.0 + std::exp(-b[vh]));
        for (std::int64_t r = 0; r < kDim; ++r) {
          double* row = s + r * kDim;
          double old_v = 0;
          for (std::int64_t i = 0; i < kDim; ++i) old_v += k[qkh * kDim + i] * g * row[i];
          const double new_v = beta * v[vh * kDim + r] + (1 - beta) * old_v;
          double o = 0;
          for (std::int64_t i = 0; i < kDim; ++i) {
            row[i] = g * row[i] + k[qkh * kDim + i] * (new_v - old_v);
            o += q[qkh * kDim + i] * row[i];
          }
          e.output[vh * kDim + r] = scale * o;
        }
      }
    }
  }
  return e;
}

// Largest |got - want| over an output, in units of want's bf16 rounding step (half an ulp
// of bf16 is the rounding error a correct float32 kernel may show, plus float32 noise).
inline double worst_bf16_steps(const HostTensor& got, const std::vector<double>& want) {
  const std::vector<double> g = to_float64(got);
  double worst = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double step = std::fmax(std::fabs(want[i]) * 0x1p-8, 1e-7);
    worst = std::fmax(worst, std::fabs(g[i] - want[i]) / step);
  }
  return worst;
}

inline double max_abs_diff(const HostTensor& got, const std::vector<double>& want) {
  const std::vector<double> g = to_float64(got);
  double worst = 0;
  for (std::size_t i = 0; i < g.size(); ++i) worst = std::fmax(worst, std::fabs(g[i] - want[i]));
  return worst;
}

inline void set_bf16(HostTensor& t, std::size_t i, double value) { write_from_double(t, i, value); }

}  // namespace kh::gdn_test
