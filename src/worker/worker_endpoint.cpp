#include "worker/worker_endpoint.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <charconv>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "base/os_error.h"
#include "error/error.h"
#include "worker/payload_buffers.h"

namespace kh {
namespace {

int descriptor_number(const char* variable, const char* value) {
  std::string_view text(value);
  int fd = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), fd);
  if (ec != std::errc{} || end != text.data() + text.size() || fd < 0)
    throw Error(std::string(variable) + " is not a descriptor number: '" + std::string(text) + "'");
  return fd;
}

int channel_fd_from_environment() {
  const char* value = std::getenv("KHARNESS_CHANNEL_FD");
  if (!value) throw Error("KHARNESS_CHANNEL_FD is not set: this program must be started by kharness");
  return descriptor_number("KHARNESS_CHANNEL_FD", value);
}

}  // namespace

Channel open_inherited_channel(ChannelOptions options) {
  int fd = channel_fd_from_environment();
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw os_error("fstat(KHARNESS_CHANNEL_FD)");
  if (!S_ISSOCK(info.st_mode)) throw Error("KHARNESS_CHANNEL_FD " + std::to_string(fd) + " is not a socket");
  int flags = ::fcntl(fd, F_GETFD);
  if (flags < 0) throw os_error("fcntl(F_GETFD)");
  if (::fcntl(fd, F_SETFD, flags | FD_CLOEXEC) != 0) throw os_error("fcntl(F_SETFD)");
  Channel channel(UniqueFd(fd), std::move(options));
  if (const char* region = std::getenv("KHARNESS_REPLY_REGION_FD"); region != nullptr)
    channel.attach_reply_region(
        SharedRegion::map_inherited(descriptor_number("KHARNESS_REPLY_REGION_FD", region)));
  return channel;
}

void serve(Channel& channel, const RequestHandler& handler, const std::function<void()>& after_reply) {
  for (;;) {
    std::optional<Message> request;
    try {
      request = channel.receive(Channel::Clock::time_point::max());
    } catch (const Error&) {
      if (channel.peer_closed()) return;  // the orchestrator is gone: nothing left to serve
      throw;
    }
    if (request->kind() == "shutdown") return;
    Message reply;
    try {
      reply = handler(*request);
    } catch (const std::exception& e) {
      reply = Message::make("error", 0, {{"message", e.what()}});
    }
    reply.request_id = request->request_id;
    channel.send(reply);
    give_back_payload_buffer(std::move(reply.payload));
    if (after_reply) after_reply();
  }
}

}  // namespace kh
