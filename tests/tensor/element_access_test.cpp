#include "tensor/element_access.h"

#include <gtest/gtest.h>

#include <cmath>

#include "error/error.h"

namespace kh {
namespace {

TEST(ElementAccess, EveryDTypeStoresSmallIntegersExactly) {
  for (int i = 0; i <= static_cast<int>(DType::boolean); ++i) {
    const auto d = static_cast<DType>(i);
    HostTensor t(d, {5});
    const double values[5] = {0, 1, -1, 2, -2};
    for (std::size_t k = 0; k < 5; ++k) write_from_double(t, k, values[k]);
    for (std::size_t k = 0; k < 5; ++k) {
      double expect = values[k];
      if (d == DType::boolean) expect = values[k] != 0 ? 1 : 0;
      if (d == DType::uint8 && values[k] < 0) expect = 0;  // clamped
      EXPECT_EQ(read_as_double(t, k), expect) << dtype_name(d) << " element " << k;
    }
  }
}

TEST(ElementAccess, Fp4LowNibbleIsEvenIndex) {
  HostTensor t(DType::float4_e2m1, {3});
  write_from_double(t, 0, 1.0);   // code 2
  write_from_double(t, 1, -6.0);  // code 0xF
  write_from_double(t, 2, 0.5);   // code 1
  EXPECT_EQ(t.bytes()[0], std::byte{0xF2});
  EXPECT_EQ(t.bytes()[1], std::byte{0x01});
  EXPECT_EQ(to_float64(t), (std::vector<double>{1.0, -6.0, 0.5}));
}

TEST(ElementAccess, IntegersClampInsteadOfOverflowing) {
  HostTensor t(DType::int8, {3});
  write_from_double(t, 0, 1000.0);
  write_from_double(t, 1, -1e300);
  write_from_double(t, 2, std::nan(""));
  EXPECT_EQ(to_float64(t), (std::vector<double>{127, -128, 0}));
  HostTensor big(DType::int64, {1});
  write_from_double(big, 0, 1e300);
  EXPECT_EQ(big.as<std::int64_t>()[0], std::numeric_limits<std::int64_t>::max());
}

TEST(ElementAccess, RoundsToTheDType) {
  HostTensor t(DType::float8_e4m3fn, {2});
  write_from_double(t, 0, 1000.0);
  write_from_double(t, 1, 0.3);
  EXPECT_TRUE(std::isnan(read_as_double(t, 0)));
  EXPECT_EQ(read_as_double(t, 1), 0.3125);
}

TEST(ElementAccess, IndexIsChecked) {
  HostTensor t(DType::float32, {2});
  EXPECT_THROW((void)read_as_double(t, 2), Error);
  EXPECT_THROW(write_from_double(t, 5, 1.0), Error);
}

}  // namespace
}  // namespace kh
