#include "worker/channel.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <string>
#include <utility>

#include "base/os_error.h"
#include "error/error.h"
#include "worker/detail/frame_header.h"
#include "worker/detail/frame_reader.h"

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
  // Invalid UTF-8 in a string is replaced rather than thrown: the header is data.
  std::string json = message.header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
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
    if (reader_->complete()) return reader_->take();
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

}  // namespace kh
