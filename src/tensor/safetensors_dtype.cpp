#include "tensor/safetensors_dtype.h"

#include <array>
#include <utility>

#include "tensor/safetensors.h"

namespace kh {

namespace {
constexpr std::array<std::pair<DType, std::string_view>, 12> kNames{{
    {DType::float32, "F32"},
    {DType::float16, "F16"},
    {DType::bfloat16, "BF16"},
    {DType::float8_e4m3fn, "F8_E4M3"},
    {DType::float8_e5m2, "F8_E5M2"},
    {DType::float4_e2m1, "F4"},
    {DType::int64, "I64"},
    {DType::int32, "I32"},
    {DType::int16, "I16"},
    {DType::int8, "I8"},
    {DType::uint8, "U8"},
    {DType::boolean, "BOOL"},
}};

constexpr std::array<std::string_view, 8> kUnsupported{"F64", "U16",     "U32",     "U64",
                                                       "C64", "F8_E8M0", "F6_E2M3", "F6_E3M2"};
}  // namespace

std::string_view safetensors_dtype_name(DType t) noexcept {
  for (const auto& [d, name] : kNames) {
    if (d == t) return name;
  }
  return "U8";  // unreachable: kNames covers every DType
}

namespace detail {

std::optional<DType> safetensors_dtype(std::string_view name) noexcept {
  for (const auto& [d, n] : kNames) {
    if (n == name) return d;
  }
  return std::nullopt;
}

bool safetensors_dtype_known_unsupported(std::string_view name) noexcept {
  for (std::string_view n : kUnsupported) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace detail
}  // namespace kh
