// Channel: framed messages over one connected AF_UNIX SOCK_STREAM socket.
//
// Wire format (docs/worker.md has it byte by byte): a 28-byte little-endian header
// {magic "KHW1", u32 version, u64 request_id, u32 json_len, u64 payload_len}, then
// json_len bytes of JSON (an object with a string "kind"), then payload_len raw bytes.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "base/unique_fd.h"
#include "worker/message.h"
#include "worker/shared_region.h"

namespace kh {

namespace detail {
class FrameReader;
}

// The header key of a frame whose payload lies in the shared reply region; reserved.
inline constexpr const char* kRegionPayloadKey = "payload_in_region";

struct ChannelOptions {
  std::uint64_t max_json_bytes = std::uint64_t{64} << 20;     // 64 MiB
  std::uint64_t max_payload_bytes = std::uint64_t{64} << 30;  // 64 GiB
  // Names the other end in error messages: "worker closed the channel".
  std::string peer_name = "worker";
};

class Channel {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Channel(UniqueFd socket, ChannelOptions options = {});
  ~Channel();
  // Move-only: the channel owns the socket and the partially received frame;
  // two copies would interleave reads of one byte stream.
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  Channel(Channel&&) noexcept;
  Channel& operator=(Channel&&) noexcept;

  // Sends one frame, waiting as long as the peer takes to read it.
  void send(const Message& message);
  // Sends one frame; false when `deadline` passed first. A frame cut off by the
  // deadline leaves the stream unusable, so later calls then throw.
  [[nodiscard]] bool send(const Message& message, Clock::time_point deadline);

  // The next frame, or nullopt when `deadline` passes first. A frame that was
  // partly received by then is kept and completed by the next call.
  // kh::Error on EOF ("worker closed the channel"), a bad magic or version, a
  // length over its limit, or a header that is not a JSON object with a "kind".
  // After an error the channel is unusable and every later call throws it again.
  [[nodiscard]] std::optional<Message> receive(Clock::time_point deadline);

  // The region that payloads may travel through instead of the socket (worker/shared_region.h).
  // The header key kRegionPayloadKey then says how many of its first bytes the payload is;
  // receive() copies them out into the message's payload and removes the key.
  void attach_reply_region(SharedRegion region) noexcept { region_ = std::move(region); }
  // The worker's side: where a reply's payload may be written in place before it is sent
  // with Message::payload_in_region; empty without a region.
  [[nodiscard]] std::span<std::byte> reply_region() const noexcept { return region_.bytes(); }

  // True once the peer was seen to close its end (EOF or a broken pipe).
  [[nodiscard]] bool peer_closed() const noexcept { return peer_closed_; }
  [[nodiscard]] int fd() const noexcept { return socket_.get(); }
  [[nodiscard]] const ChannelOptions& options() const noexcept { return options_; }

 private:
  [[noreturn]] void fail(std::string reason);
  void throw_if_failed() const;
  // false when the deadline passed before the socket became ready.
  [[nodiscard]] bool wait_ready(short events, Clock::time_point deadline) const;

  UniqueFd socket_;
  ChannelOptions options_;
  std::unique_ptr<detail::FrameReader> reader_;
  // The payload a received header says lies in the region, copied out.
  void take_region_payload(Message& message);

  std::optional<std::string> failure_;
  bool peer_closed_ = false;
  SharedRegion region_;
};

}  // namespace kh
