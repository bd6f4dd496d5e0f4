// FrameReader: assembles one frame from bytes as they arrive, in any split.
//
// It owns the partial frame between reads, so a receive() that hits its deadline
// mid-frame loses nothing: the next receive() continues where it stopped. It does
// no I/O itself; the channel asks where the next bytes go and reports how many came.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "worker/detail/frame_header.h"
#include "worker/message.h"

namespace kh::detail {

struct FrameLimits {
  std::uint64_t max_json_bytes = 0;
  std::uint64_t max_payload_bytes = 0;
};

class FrameReader {
 public:
  FrameReader(FrameLimits limits, std::string origin) : limits_(limits), origin_(std::move(origin)) {}

  // Where the next received bytes should be written; never empty unless complete().
  [[nodiscard]] std::span<std::byte> next_buffer();
  // `n` bytes were written at the start of next_buffer(). kh::Error when they
  // complete a part that is invalid (magic, version, a length over its limit, JSON).
  void commit(std::size_t n);

  [[nodiscard]] bool complete() const noexcept { return stage_ == Stage::complete; }
  // True once any byte of the current frame has arrived.
  [[nodiscard]] bool mid_frame() const noexcept { return stage_ != Stage::header || filled_ != 0; }
  // The finished frame; the reader starts over. Only when complete().
  [[nodiscard]] Message take();

 private:
  enum class Stage { header, json, payload, complete };

  void finish_header();
  void finish_json();
  void start_payload();

  FrameLimits limits_;
  std::string origin_;
  Stage stage_ = Stage::header;
  std::size_t filled_ = 0;  // bytes of the current stage received so far
  EncodedFrameHeader header_bytes_{};
  FrameHeader header_;
  std::string json_;
  Message message_;
};

}  // namespace kh::detail
