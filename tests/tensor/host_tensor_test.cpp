#include "tensor/host_tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "error/error.h"
#include "tensor/dlpack_codes.h"

namespace kh {
namespace {

TEST(HostTensor, ZeroedAlignedAndSized) {
  HostTensor t(DType::bfloat16, {3, 5});
  EXPECT_EQ(t.numel(), 15u);
  EXPECT_EQ(t.nbytes(), 30u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.bytes().data()) % HostTensor::kAlignment, 0u);
  for (std::byte b : t.bytes()) EXPECT_EQ(b, std::byte{0});
  EXPECT_FALSE(t.is_scalar());
}

// A reply's bytes become a tensor in one write; a byte count that does not fit the
// dtype and shape is refused, not truncated or read past.
TEST(HostTensor, CopyOfHoldsExactlyTheBytesItWasGiven) {
  const std::vector<std::byte> bytes = {std::byte{1}, std::byte{2}, std::byte{3},
                                        std::byte{4}, std::byte{5}, std::byte{6}};
  const HostTensor t = HostTensor::copy_of(DType::int16, {3}, bytes);
  EXPECT_EQ(t.numel(), 3u);
  ASSERT_EQ(t.nbytes(), 6u);
  EXPECT_EQ(std::memcmp(t.bytes().data(), bytes.data(), 6), 0);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.bytes().data()) % HostTensor::kAlignment, 0u);
  EXPECT_THROW((void)HostTensor::copy_of(DType::int16, {4}, bytes), Error);
  EXPECT_THROW((void)HostTensor::copy_of(DType::int16, {2}, bytes), Error);
  EXPECT_EQ(HostTensor::copy_of(DType::float32, {0}, {}).nbytes(), 0u);
}

TEST(HostTensor, Fp4PacksTwoPerByte) {
  EXPECT_EQ(HostTensor(DType::float4_e2m1, {7}).nbytes(), 4u);
  EXPECT_EQ(HostTensor(DType::float4_e2m1, {2, 4}).nbytes(), 4u);
}

TEST(HostTensor, EmptyShapesAndScalars) {
  HostTensor empty(DType::float32, {4, 0});
  EXPECT_EQ(empty.numel(), 0u);
  EXPECT_NE(empty.bytes().data(), nullptr) << "";
  HostTensor zero_d(DType::int32, {});
  EXPECT_EQ(zero_d.numel(), 1u);
  EXPECT_FALSE(zero_d.is_scalar());
  HostTensor s = HostTensor::scalar(DType::float32);
  EXPECT_TRUE(s.is_scalar());
  EXPECT_EQ(s.numel(), 1u);
  EXPECT_TRUE(s.shape().empty());
}

TEST(HostTensor, RejectsBadShapes) {
  try {
    HostTensor t(DType::float32, {2, -1});
    FAIL() << "negative dimension accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("negative"), std::string::npos) << e.what();
  }
  EXPECT_THROW(HostTensor(DType::float32, {1ll << 40, 1ll << 40}), Error);
}

TEST(HostTensor, TypedViewsCheckElementSize) {
  HostTensor t(DType::float32, {4});
  auto v = t.as<float>();
  v[2] = 1.5f;
  EXPECT_EQ(std::as_const(t).as<float>()[2], 1.5f);
  EXPECT_THROW((void)t.as<std::uint16_t>(), Error);
  HostTensor h(DType::float16, {2});
  EXPECT_EQ(h.as<std::uint16_t>().size(), 2u);
}

TEST(HostTensor, MoveLeavesSourceEmptyAndCloneCopies) {
  HostTensor a(DType::int8, {3});
  a.as<std::int8_t>()[1] = 7;
  HostTensor b = std::move(a);
  EXPECT_EQ(b.as<std::int8_t>()[1], 7);
  HostTensor c = b.clone();
  c.as<std::int8_t>()[1] = 9;
  EXPECT_EQ(b.as<std::int8_t>()[1], 7);
  EXPECT_EQ(c.as<std::int8_t>()[1], 9);
  static_assert(!std::is_copy_constructible_v<HostTensor>);
}

TEST(HostTensor, DlpackViewDescribesTheStorage) {
  HostTensor t(DType::float8_e4m3fn, {2, 3});
  DLTensor d = t.dlpack_view();
  EXPECT_EQ(d.data, t.bytes().data());
  EXPECT_EQ(d.device.device_type, kDLCPU);
  EXPECT_EQ(d.ndim, 2);
  EXPECT_EQ(d.shape[0], 2);
  EXPECT_EQ(d.shape[1], 3);
  EXPECT_EQ(d.strides, nullptr);
  EXPECT_EQ(d.byte_offset, 0u);
  EXPECT_EQ(d.dtype.code, kDLCodeFloat8_e4m3fn);
  EXPECT_EQ(d.dtype.bits, 8);
  EXPECT_EQ(d.dtype.lanes, 1);
}

}  // namespace
}  // namespace kh
