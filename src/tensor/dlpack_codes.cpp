#include "tensor/dlpack_codes.h"

#include <array>

namespace kh {

namespace {
struct Mapping {
  DType dtype;
  std::uint8_t code;
  std::uint8_t bits;
};

constexpr std::array<Mapping, 12> kMappings{{
    {DType::float32, kDLCodeFloat, 32},
    {DType::float16, kDLCodeFloat, 16},
    {DType::bfloat16, kDLCodeBfloat, 16},
    {DType::float8_e4m3fn, kDLCodeFloat8_e4m3fn, 8},
    {DType::float8_e5m2, kDLCodeFloat8_e5m2, 8},
    {DType::float4_e2m1, kDLCodeFloat4_e2m1fn, 4},
    {DType::int64, kDLCodeInt, 64},
    {DType::int32, kDLCodeInt, 32},
    {DType::int16, kDLCodeInt, 16},
    {DType::int8, kDLCodeInt, 8},
    {DType::uint8, kDLCodeUInt, 8},
    {DType::boolean, kDLCodeBool, 8},
}};
}  // namespace

DLDataType to_dlpack(DType t) noexcept {
  for (const Mapping& m : kMappings) {
    if (m.dtype == t) return DLDataType{m.code, m.bits, 1};
  }
  return DLDataType{kDLCodeUInt, 8, 1};  // unreachable: kMappings covers every DType
}

std::optional<DType> from_dlpack(DLDataType t) noexcept {
  if (t.lanes != 1) return std::nullopt;
  for (const Mapping& m : kMappings) {
    if (m.code == t.code && m.bits == t.bits) return m.dtype;
  }
  return std::nullopt;
}

}  // namespace kh
