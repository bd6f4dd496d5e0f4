// DLPack type codes for every DType.
//
// The installed DLPack headers are 0.6, which predate fp8, fp4 and bool. The numeric
// codes below are those of DLPack 1.1, so a consumer built against a newer DLPack (PyTorch,
// JAX, CuPy) reads our tensors correctly; the values are ABI, not ours to choose.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <optional>

#include "tensor/dtype.h"

namespace kh {

inline constexpr std::uint8_t kDLCodeInt = 0;
inline constexpr std::uint8_t kDLCodeUInt = 1;
inline constexpr std::uint8_t kDLCodeFloat = 2;
inline constexpr std::uint8_t kDLCodeBfloat = 4;
inline constexpr std::uint8_t kDLCodeBool = 6;
inline constexpr std::uint8_t kDLCodeFloat8_e4m3fn = 10;
inline constexpr std::uint8_t kDLCodeFloat8_e5m2 = 12;
inline constexpr std::uint8_t kDLCodeFloat4_e2m1fn = 17;

// Every DType has a DLPack 1.1 type (lanes 1; fp4 has bits 4).
[[nodiscard]] DLDataType to_dlpack(DType t) noexcept;

// nullopt for types kharness has no DType for (float64, complex, vectors, ...).
[[nodiscard]] std::optional<DType> from_dlpack(DLDataType t) noexcept;

}  // namespace kh
