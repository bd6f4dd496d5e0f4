#include "worker/channel.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/os_error.h"
#include "error/error.h"
#include "worker/detail/frame_header.h"
#include "worker/detail/frame_reader.h"
#include "worker/payload_buffers.h"

namespace kh {
namespace {

// poll() timeout for the time left until `deadline`, rounded up so that we never
// wake just before the deadline and spin.
int poll_timeout_ms(Channel::Clock::time_point deadline) {
  if (deadline == Channel::Clock::time_point::max()) return -1;
  auto left = deadline - Channel::Clock::now();
  if (left <= Channel::Clock::duration::zero()) return 0;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return static_cast<int>(std::min<decltype(ms)>(ms, 1 << 30));
}

// Drops `n` sent bytes from the front of the iovec list.
void advance(iovec*& iov, int& count, std::size_t n) {
  while (count > 0 && n >= iov->iov_len) {
    n -= iov->iov_len;
    ++iov;
    --count;
  }
  if (count > 0) {
    iov->iov_base = static_cast<char*>(iov->iov_base) + n;
    iov->iov_len -= n;
  }
}

// Copies a region payload out in a few slices side by side: one thread's memcpy (7-10
// GB/s) would give back much of what leaving the socket gained on outputs of gigabytes.
void copy_out(std::byte* dst, const std::byte* src, std::size_t bytes) {
  constexpr std::size_t kSlice = std::size_t{16} << 20;
  const std::size_t threads = std::min<std::size_t>(4, std::max<std::size_t>(1, bytes / kSlice));
  if (threads == 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const std::size_t share = (bytes + threads - 1) / threads;
  std::vector<std::thread> helpers;
  for (std::size_t i = 1; i < threads; ++i) {
    const std::size_t begin = std::min(bytes, i * share);
    const std::size_t end = std::min(bytes, begin + share);
    helpers.emplace_back([=] { std::memcpy(dst + begin, src + begin, end - begin); });
  }
  std::memcpy(dst, src, std::min(bytes, share));
  for (std::thread& t : helpers) t.join();
}

}  // namespace

Channel::Channel(UniqueFd socket, ChannelOptions options)
    : socket_(std::move(socket)),
      options_(std::move(options)),
      reader_(std::make_unique<detail::FrameReader>(
          detail::FrameLimits{options_.max_json_bytes, options_.max_payload_bytes},
          "frame from " + options_.peer_name)) {
  if (!socket_) throw Error("channel needs an open socket");
}

Channel::~Channel() = default;
Channel::Channel(Channel&&) noexcept = default;
Channel& Channel::operator=(Channel&&) noexcept = default;

void Channel::fail(std::string reason) {
  failure_ = reason;
  throw Error(std::move(reason));
}

void Channel::throw_if_failed() const {
  if (failure_) throw Error(*failure_);
}

bool Channel::wait_ready(short events, Clock::time_point deadline) const {
  for (;;) {
    pollfd p{socket_.get(), events, 0};
    int timeout = poll_timeout_ms(deadline);
    int rc = ::poll(&p, 1, timeout);
    if (rc > 0) return true;  // ready, hung up or in error: the next call says which
    if (rc == 0) {
      if (timeout == 0 || Clock::now() >= deadline) return false;
      continue;
    }
    if (errno != EINTR) throw os_error("poll");
  }
}

void Channel::send(const Message& message) { (void)send(message, Clock::time_point::max()); }

bool Channel::send(const Message& message, Clock::time_point deadline) {
  throw_if_failed();
  validate_header(message.header, "message to " + options_.peer_name);
  if (message.header.contains(kRegionPayloadKey))
    throw Error(
        fmt::format("message to {}: the header key '{}' is reserved", options_.peer_name, kRegionPayloadKey));
  nlohmann::ordered_json region_header;
  if (message.payload_in_region > 0) {
    if (!message.payload.empty() || message.payload_in_region > region_.size())
      throw Error(fmt::format(
          "message to {}: a payload of {} bytes in a shared region of {} (and {} bytes beside it)",
          options_.peer_name, message.payload_in_region, region_.size(), message.payload.size()));
    region_header = message.header;
    region_header[kRegionPayloadKey] = message.payload_in_region;
  }
  const nlohmann::ordered_json& sent_header = message.payload_in_region > 0 ? region_header : message.header;
  // Invalid UTF-8 in a string is replaced rather than thrown: the header is data.
  std::string json = sent_header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  if (json.size() > options_.max_json_bytes)
    throw Error(fmt::format("message to {}: JSON header of {} bytes exceeds the limit of {} bytes",
                            options_.peer_name, json.size(), options_.max_json_bytes));
  auto header = detail::encode_frame_header(
      {message.request_id, static_cast<std::uint32_t>(json.size()), message.payload.size()});
  // The small header and JSON are joined; the payload is sent from where it lies.
  std::string prefix(reinterpret_cast<const char*>(header.data()), header.size());
  prefix += json;
  iovec parts[2] = {{prefix.data(), prefix.size()},
                    {const_cast<std::byte*>(message.payload.data()), message.payload.size()}};
  iovec* iov = parts;
  int count = message.payload.empty() ? 1 : 2;
  std::size_t sent = 0;
  while (count > 0) {
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<std::size_t>(count);
    ssize_t n = ::sendmsg(socket_.get(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) {
      sent += static_cast<std::size_t>(n);
      advance(iov, count, static_cast<std::size_t>(n));
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (wait_ready(POLLOUT, deadline)) continue;
      if (sent != 0)
        failure_ = "channel to " + options_.peer_name + " is unusable: a send timed out mid-frame";
      return false;
    }
    if (errno == EPIPE || errno == ECONNRESET) {
      peer_closed_ = true;
      fail(options_.peer_name + " closed the channel");
    }
    fail(os_error("sendmsg").what());
  }
  return true;
}

std::optional<Message> Channel::receive(Clock::time_point deadline) {
  throw_if_failed();
  for (;;) {
    if (reader_->complete()) {
      Message message = reader_->take();
      take_region_payload(message);
      return message;
    }
    auto buffer = reader_->next_buffer();
    ssize_t n = ::recv(socket_.get(), buffer.data(), buffer.size(), MSG_DONTWAIT);
    if (n > 0) {
      try {
        reader_->commit(static_cast<std::size_t>(n));
      } catch (const Error& e) {
        fail(e.what());
      }
      continue;
    }
    if (n == 0) {
      peer_closed_ = true;
      fail(options_.peer_name + " closed the channel" +
           (reader_->mid_frame() ? " in the middle of a frame" : ""));
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_ready(POLLIN, deadline)) return std::nullopt;
      continue;
    }
    if (errno == ECONNRESET) {
      peer_closed_ = true;
      fail(options_.peer_name + " closed the channel");
    }
    fail(os_error("recv").what());
  }
}

void Channel::take_region_payload(Message& message) {
  const auto key = message.header.find(kRegionPayloadKey);
  if (key == message.header.end()) return;
  const std::string origin = "frame from " + options_.peer_name;
  if (!key->is_number_unsigned())
    fail(fmt::format("{}: '{}' is not a byte count", origin, kRegionPayloadKey));
  const auto bytes = key->get<std::uint64_t>();
  if (!region_.mapped()) fail(fmt::format("{}: a payload in a shared region, but there is none", origin));
  if (bytes > region_.size() || bytes > options_.max_payload_bytes || !message.payload.empty()) {
    fail(fmt::format("{}: a payload of {} bytes in a shared region of {} (limit {}, {} bytes beside it)",
                     origin, bytes, region_.size(), options_.max_payload_bytes, message.payload.size()));
  }
  message.payload = take_payload_buffer(bytes);
  message.payload.resize(bytes);
  copy_out(message.payload.data(), region_.bytes().data(), bytes);
  message.header.erase(kRegionPayloadKey);
}

}  // namespace kh
