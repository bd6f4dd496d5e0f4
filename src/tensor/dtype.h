// The element types of FlashInfer-Trace, with their names and storage sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace kh {

enum class DType : std::uint8_t {
  float32,
  float16,
  bfloat16,
  float8_e4m3fn,
  float8_e5m2,
  float4_e2m1,  // two values packed per byte, low nibble first
  int64,
  int32,
  int16,
  int8,
  uint8,  // not a FlashInfer-Trace dtype; raw bytes in safetensors ("U8") and packed caches
  boolean,
};

// Canonical FlashInfer-Trace name ("float8_e4m3fn", "bool", ...).
[[nodiscard]] std::string_view dtype_name(DType t) noexcept;

// Parses a FlashInfer-Trace dtype name. Accepts the canonical names and the older
// alias "float8_e4m3" used by early flashinfer-bench files. uint8 is not accepted here
// because the format does not have it.
[[nodiscard]] std::optional<DType> parse_dtype(std::string_view name) noexcept;

// Every dtype that a FlashInfer-Trace definition may name, in canonical order.
[[nodiscard]] std::span<const DType> trace_dtypes() noexcept;

// Bits per element: 4 for float4_e2m1, 8*bytes otherwise.
[[nodiscard]] std::size_t dtype_bits(DType t) noexcept;

// Bytes needed to store n elements (fp4 rounds up to whole bytes).
[[nodiscard]] std::size_t dtype_storage_bytes(DType t, std::size_t n) noexcept;

[[nodiscard]] bool dtype_is_float(DType t) noexcept;
[[nodiscard]] bool dtype_is_integer(DType t) noexcept;  // bool excluded

}  // namespace kh
