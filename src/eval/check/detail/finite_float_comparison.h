// The comparison rule of value_comparison.h over a range of two float-format tensors
// (float32, bfloat16, float16), vectorised: both are widened block by block into float
// buffers (exact for these formats) and compared in double in explicit SIMD lanes, each
// with its own sums and maxima. The scalar rule's special cases for NaN and Inf are not
// repeated here: a range that holds one gives nullopt, and the caller compares it the
// scalar way. The results equal the scalar rule's, except that abs_sum adds in another
// order.
#pragma once

#include <cstddef>
#include <optional>

#include "eval/check/value_comparison.h"
#include "tensor/host_tensor.h"

namespace kh::detail {

[[nodiscard]] bool widens_exactly_to_float(DType dtype);

// Over elements [begin, begin + n) of both tensors, which must be float formats, as
// compare_values would give on those elements widened to double.
[[nodiscard]] std::optional<ValueComparison> compare_finite_floats(const HostTensor& actual,
                                                                   const HostTensor& reference,
                                                                   std::size_t begin, std::size_t n,
                                                                   const Tolerance& tolerance);

}  // namespace kh::detail
