// The fixed 28-byte header that starts every frame, and its explicit
// little-endian encoding (never a memcpy of a struct: no padding, no host order).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace kh::detail {

inline constexpr std::array<std::byte, 4> kFrameMagic{std::byte{'K'}, std::byte{'H'}, std::byte{'W'},
                                                      std::byte{'1'}};
inline constexpr std::uint32_t kFrameVersion = 1;
// magic(4) version(4) request_id(8) json_len(4) payload_len(8)
inline constexpr std::size_t kFrameHeaderSize = 28;

struct FrameHeader {
  std::uint64_t request_id = 0;
  std::uint32_t json_len = 0;
  std::uint64_t payload_len = 0;
};

using EncodedFrameHeader = std::array<std::byte, kFrameHeaderSize>;

[[nodiscard]] EncodedFrameHeader encode_frame_header(const FrameHeader& header);

// kh::Error on a bad magic or version. Limits on the lengths are the channel's
// business, not the header's.
[[nodiscard]] FrameHeader decode_frame_header(const EncodedFrameHeader& bytes);

}  // namespace kh::detail
