#include "worker/await_reply.h"

#include <fmt/format.h>

#include "error/error.h"

namespace kh {

std::optional<Message> await_reply(Channel& channel, std::uint64_t request_id,
                                   Channel::Clock::time_point deadline, std::vector<Message>& notes,
                                   std::size_t max_notes) {
  for (;;) {
    auto frame = channel.receive(deadline);
    if (!frame) return std::nullopt;
    // A frame for another request is never skipped: the worker answering the wrong
    // question is a protocol violation, whatever the reason.
    if (frame->request_id != request_id)
      throw Error(
          fmt::format("reply for request {} does not match request {}", frame->request_id, request_id));
    const auto& kind = frame->kind();
    if (kind != kLogKind && kind != kProgressKind) return frame;
    if (notes.size() >= max_notes)
      throw Error(
          fmt::format("{} sent more than {} log/progress frames", channel.options().peer_name, max_notes));
    notes.push_back(std::move(*frame));
  }
}

}  // namespace kh
