// Safetensors dtype names <-> DType, shared by the reader and the writer.
#pragma once

#include <optional>
#include <string_view>

#include "tensor/dtype.h"

namespace kh::detail {

[[nodiscard]] std::optional<DType> safetensors_dtype(std::string_view name) noexcept;

// Names the format defines but kharness cannot hold, so the error can say "unsupported"
// rather than "unknown".
[[nodiscard]] bool safetensors_dtype_known_unsupported(std::string_view name) noexcept;

}  // namespace kh::detail
