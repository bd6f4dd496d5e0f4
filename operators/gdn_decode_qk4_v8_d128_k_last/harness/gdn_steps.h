// The steps of the gated delta rule's generator (gdn_inputs.h), shared by the host twin
// and the device kernels.
#pragma once

#include <cstdint>

#include "tensor/counter_rng.h"
#include "tensor/portable/fill_steps.h"
#include "tensor/portable/portable_math.h"

namespace kh::gdn_inputs {

inline constexpr std::uint64_t kHeadSize = 128;
inline constexpr double kStateStd = 0.1;
inline constexpr double kMinRate = 1.0, kMaxRate = 16.0;  // A = exp(A_log)
inline constexpr double kMinDt = 1e-3, kMaxDt = 1e-1;     // softplus(dt_bias)
inline constexpr double kLengthSigma = 1.2;               // spread of the log-normal length weights

// Row r of 128 bf16 values: the default rule's normal draws, rounded to bf16, then
// scaled to unit L2 norm (the sum of squares in double, in index order) and rounded again.
struct UnitRowStep {
  std::uint16_t* x;
  detail::FillRule normal;
  const detail::ZigguratTables* tables;
  KH_PORTABLE void operator()(std::uint64_t r) const {
    float v[kHeadSize];
    double sum = 0;
    for (std::uint64_t i = 0; i < kHeadSize; ++i) {
      v[i] = detail::decode_bf16(
          detail::generate_element<detail::dtype_code::bfloat16>(normal, *tables, r * kHeadSize + i));
      sum += static_cast<double>(v[i]) * static_cast<double>(v[i]);
    }
    if (sum == 0) {  // a zero row (never drawn in practice) becomes e_0
      v[0] = 1.0f;
      sum = 1.0;
    }
    const auto inv = static_cast<float>(1.0 / detail::portable_sqrt(sum));
    for (std::uint64_t i = 0; i < kHeadSize; ++i) x[r * kHeadSize + i] = detail::encode_bf16(v[i] * inv);
  }
};

// A_log[i] = log(uniform(1, 16)).
struct DecayStep {
  float* x;
  std::uint64_t key;
  KH_PORTABLE void operator()(std::uint64_t i) const {
    const double rate = kMinRate + unit_double(random_word(key, i)) * (kMaxRate - kMinRate);
    x[i] = static_cast<float>(detail::portable_log(rate));
  }
};

// dt_bias[i] = log(expm1(dt)), dt log-uniform in [1e-3, 1e-1], so softplus(dt_bias) = dt.
struct DtBiasStep {
  float* x;
  std::uint64_t key;
  KH_PORTABLE void operator()(std::uint64_t i) const {
    const double lo = detail::portable_log(kMinDt);
    const double hi = detail::portable_log(kMaxDt);
    const double dt = detail::portable_exp(lo + unit_double(random_word(key, i)) * (hi - lo));
    x[i] = static_cast<float>(detail::portable_log(detail::portable_expm1(dt)));
  }
};

// The device launches of the steps above (gdn_inputs.cu), on a cudaStream_t.
void launch_unit_rows(const UnitRowStep& step, std::uint64_t rows, void* stream);
void launch_decay(const DecayStep& step, std::uint64_t n, void* stream);
void launch_dt_bias(const DtBiasStep& step, std::uint64_t n, void* stream);

}  // namespace kh::gdn_inputs
