#include "worker/detail/frame_header.h"

#include <fmt/format.h>

#include <algorithm>

#include "error/error.h"

namespace kh::detail {
namespace {

template <typename T>
void put_le(std::byte* out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out[i] = static_cast<std::byte>((value >> (8 * i)) & 0xffu);
}

template <typename T>
T get_le(const std::byte* in) {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) value |= static_cast<T>(std::to_integer<T>(in[i]) << (8 * i));
  return value;
}

}  // namespace

EncodedFrameHeader encode_frame_header(const FrameHeader& header) {
  EncodedFrameHeader out{};
  std::copy(kFrameMagic.begin(), kFrameMagic.end(), out.begin());
  put_le<std::uint32_t>(out.data() + 4, kFrameVersion);
  put_le<std::uint64_t>(out.data() + 8, header.request_id);
  put_le<std::uint32_t>(out.data() + 16, header.json_len);
  put_le<std::uint64_t>(out.data() + 20, header.payload_len);
  return out;
}

FrameHeader decode_frame_header(const EncodedFrameHeader& bytes) {
  if (!std::equal(kFrameMagic.begin(), kFrameMagic.end(), bytes.begin())) {
    throw Error(fmt::format("bad frame magic {:02x} {:02x} {:02x} {:02x} (expected \"KHW1\")",
                            std::to_integer<unsigned>(bytes[0]), std::to_integer<unsigned>(bytes[1]),
                            std::to_integer<unsigned>(bytes[2]), std::to_integer<unsigned>(bytes[3])));
  }
  auto version = get_le<std::uint32_t>(bytes.data() + 4);
  if (version != kFrameVersion)
    throw Error(fmt::format("unsupported frame version {} (expected {})", version, kFrameVersion));
  return FrameHeader{get_le<std::uint64_t>(bytes.data() + 8), get_le<std::uint32_t>(bytes.data() + 16),
                     get_le<std::uint64_t>(bytes.data() + 20)};
}

}  // namespace kh::detail
