#include "tensor/dtype.h"

#include <array>

namespace kh {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  std::size_t bits;
};

constexpr std::array<DTypeInfo, 12> kInfo{{
    {DType::float32, "float32", 32},
    {DType::float16, "float16", 16},
    {DType::bfloat16, "bfloat16", 16},
    {DType::float8_e4m3fn, "float8_e4m3fn", 8},
    {DType::float8_e5m2, "float8_e5m2", 8},
    {DType::float4_e2m1, "float4_e2m1", 4},
    {DType::int64, "int64", 64},
    {DType::int32, "int32", 32},
    {DType::int16, "int16", 16},
    {DType::int8, "int8", 8},
    {DType::uint8, "uint8", 8},
    {DType::boolean, "bool", 8},
}};

constexpr std::array<DType, 11> kTraceDTypes{DType::float32,       DType::float16,     DType::bfloat16,
                                             DType::float8_e4m3fn, DType::float8_e5m2, DType::float4_e2m1,
                                             DType::int64,         DType::int32,       DType::int16,
                                             DType::int8,          DType::boolean};

const DTypeInfo& info(DType t) noexcept { return kInfo[static_cast<std::size_t>(t)]; }
}  // namespace

std::string_view dtype_name(DType t) noexcept { return info(t).name; }

std::optional<DType> parse_dtype(std::string_view name) noexcept {
  if (name == "float8_e4m3") return DType::float8_e4m3fn;
  for (DType t : kTraceDTypes) {
    if (info(t).name == name) return t;
  }
  return std::nullopt;
}

std::span<const DType> trace_dtypes() noexcept { return kTraceDTypes; }

std::size_t dtype_bits(DType t) noexcept { return info(t).bits; }

std::size_t dtype_storage_bytes(DType t, std::size_t n) noexcept { return (n * dtype_bits(t) + 7) / 8; }

bool dtype_is_float(DType t) noexcept {
  switch (t) {
    case DType::float32:
    case DType::float16:
    case DType::bfloat16:
    case DType::float8_e4m3fn:
    case DType::float8_e5m2:
    case DType::float4_e2m1:
      return true;
    default:
      return false;
  }
}

bool dtype_is_integer(DType t) noexcept {
  switch (t) {
    case DType::int64:
    case DType::int32:
    case DType::int16:
    case DType::int8:
    case DType::uint8:
      return true;
    default:
      return false;
  }
}

}  // namespace kh
