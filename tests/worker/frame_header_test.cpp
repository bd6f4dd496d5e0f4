#include "worker/detail/frame_header.h"

#include <gtest/gtest.h>

#include "error/error.h"

namespace kh::detail {
namespace {

TEST(FrameHeader, IsLittleEndianByteForByte) {
  auto bytes = encode_frame_header({0x0102030405060708ull, 0x11223344u, 0xa1a2a3a4a5a6a7a8ull});
  const unsigned expected[kFrameHeaderSize] = {
      'K',  'H',  'W',  '1',                           // magic
      1,    0,    0,    0,                             // version
      0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,  // request_id
      0x44, 0x33, 0x22, 0x11,                          // json_len
      0xa8, 0xa7, 0xa6, 0xa5, 0xa4, 0xa3, 0xa2, 0xa1,  // payload_len
  };
  for (std::size_t i = 0; i < kFrameHeaderSize; ++i)
    EXPECT_EQ(std::to_integer<unsigned>(bytes[i]), expected[i]) << "byte " << i;
}

TEST(FrameHeader, RoundTrips) {
  FrameHeader in{~0ull, 12, 1ull << 40};
  auto out = decode_frame_header(encode_frame_header(in));
  EXPECT_EQ(out.request_id, in.request_id);
  EXPECT_EQ(out.json_len, in.json_len);
  EXPECT_EQ(out.payload_len, in.payload_len);
}

TEST(FrameHeader, RejectsBadMagicAndVersion) {
  auto bytes = encode_frame_header({1, 2, 3});
  bytes[3] = std::byte{'2'};
  EXPECT_THROW((void)decode_frame_header(bytes), Error);
  bytes = encode_frame_header({1, 2, 3});
  bytes[5] = std::byte{1};
  EXPECT_THROW((void)decode_frame_header(bytes), Error);
}

}  // namespace
}  // namespace kh::detail
