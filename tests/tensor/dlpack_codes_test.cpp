#include "tensor/dlpack_codes.h"

#include <gtest/gtest.h>

namespace kh {
namespace {

TEST(DlpackCodes, MatchDlpack11) {
  EXPECT_EQ(to_dlpack(DType::float8_e4m3fn).code, 10);
  EXPECT_EQ(to_dlpack(DType::float8_e5m2).code, 12);
  EXPECT_EQ(to_dlpack(DType::float4_e2m1).code, 17);
  EXPECT_EQ(to_dlpack(DType::float4_e2m1).bits, 4);
  EXPECT_EQ(to_dlpack(DType::boolean).code, 6);
  EXPECT_EQ(to_dlpack(DType::bfloat16).code, kDLBfloat);
  EXPECT_EQ(to_dlpack(DType::float32).code, kDLFloat);
  EXPECT_EQ(to_dlpack(DType::int64).code, kDLInt);
  EXPECT_EQ(to_dlpack(DType::uint8).code, kDLUInt);
}

TEST(DlpackCodes, EveryDTypeRoundTrips) {
  for (int i = 0; i <= static_cast<int>(DType::boolean); ++i) {
    const auto t = static_cast<DType>(i);
    const DLDataType d = to_dlpack(t);
    EXPECT_EQ(d.lanes, 1);
    EXPECT_EQ(d.bits, dtype_bits(t));
    EXPECT_EQ(from_dlpack(d), t) << dtype_name(t);
  }
}

TEST(DlpackCodes, UnknownTypesAreNullopt) {
  EXPECT_EQ(from_dlpack(DLDataType{kDLFloat, 64, 1}), std::nullopt);
  EXPECT_EQ(from_dlpack(DLDataType{kDLFloat, 32, 4}), std::nullopt);
  EXPECT_EQ(from_dlpack(DLDataType{kDLComplex, 64, 1}), std::nullopt);
}

}  // namespace
}  // namespace kh
