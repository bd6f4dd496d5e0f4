// Reading and writing single elements of any dtype as double, for correctness checkers
// and tests; not for hot loops over large tensors (see to_float64 for a whole tensor).
//
// float4_e2m1 is packed two per byte, the even index in the low nibble. Writes round
// as float_formats.h describes (the double is first rounded to float32, which is exact
// for every value a narrow format can hold; integers are converted by truncation toward
// zero after clamping to the dtype's range, bool is value != 0).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/host_tensor.h"

namespace kh {

// Element i of `bytes` holding `dtype` elements. No bounds check (callers loop over numel).
[[nodiscard]] double read_element(DType dtype, std::span<const std::byte> bytes, std::size_t i) noexcept;
void write_element(DType dtype, std::span<std::byte> bytes, std::size_t i, double value) noexcept;

// Bounds-checked forms on a tensor; throw kh::Error when i >= numel.
[[nodiscard]] double read_as_double(const HostTensor& t, std::size_t i);
void write_from_double(HostTensor& t, std::size_t i, double value);

// Every element, in row-major order.
[[nodiscard]] std::vector<double> to_float64(const HostTensor& t);
// Elements [begin, begin + out.size()), widened; throws kh::Error past the end. For
// loops over large tensors in chunks, without a whole-tensor copy in double.
void to_float64(const HostTensor& t, std::size_t begin, std::span<double> out);

}  // namespace kh
