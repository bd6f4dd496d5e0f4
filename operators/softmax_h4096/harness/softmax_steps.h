// The steps of softmax_h4096's generator (softmax_inputs.h), shared by the host twin and
// the device kernels.
#pragma once

#include <cstdint>

#include "tensor/counter_rng.h"
#include "tensor/portable/fill_steps.h"
#include "tensor/portable/portable_math.h"

namespace kh::softmax_inputs {

inline constexpr double kMaxShift = 128.0;
inline constexpr double kMaxScale = 8.0;
inline constexpr double kLogMaxScale = 2.0794415416798357;  // ln 8
// Counter stream of the per-row shift and scale, apart from the fill's own streams.
inline constexpr std::uint64_t kRowParameterStream = 0x50f7;

// Row r's shift and scale, into parameters[2r] and [2r + 1].
struct RowStep {
  float* parameters;
  std::uint64_t key;
  KH_PORTABLE void operator()(std::uint64_t r) const {
    parameters[2 * r] = static_cast<float>(kMaxShift * (2 * unit_double(random_word(key, 2 * r)) - 1));
    parameters[2 * r + 1] =
        static_cast<float>(detail::portable_exp(kLogMaxScale * unit_double(random_word(key, 2 * r + 1))));
  }
};

// x[i] = shift + scale * z, z the default rule's normal draw of element i.
struct ElementStep {
  float* x;
  const float* parameters;
  std::uint64_t cols;
  detail::FillRule normal;
  const detail::ZigguratTables* tables;
  KH_PORTABLE void operator()(std::uint64_t i) const {
    const std::uint64_t r = i / cols;
    const float z = detail::generate_element<detail::dtype_code::float32>(normal, *tables, i);
    const float scaled = parameters[2 * r + 1] * z;
    x[i] = parameters[2 * r] + scaled;
  }
};

// The device launches of the steps above (softmax_inputs.cu), on a cudaStream_t.
void launch_row_steps(const RowStep& step, std::uint64_t rows, void* stream);
void launch_element_steps(const ElementStep& step, std::uint64_t elements, void* stream);

}  // namespace kh::softmax_inputs
