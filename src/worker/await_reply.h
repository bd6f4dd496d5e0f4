// await_reply: the reply to one request, with the request's notes on the way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "worker/channel.h"
#include "worker/message.h"

namespace kh {

// Frames of these kinds are notes, not replies: the worker may send any number of
// them (up to max_notes) for the request before its reply.
inline constexpr std::string_view kLogKind = "log";
inline constexpr std::string_view kProgressKind = "progress";
inline constexpr std::size_t kDefaultMaxNotes = 4096;

// Receives until the reply to `request_id` arrives: nullopt when `deadline` passes
// first. "log" and "progress" frames carrying `request_id` are appended to `notes`.
// kh::Error "reply for request X does not match request Y" for a frame with another
// id, "worker sent more than N log/progress frames" past `max_notes`, and whatever
// Channel::receive() throws.
[[nodiscard]] std::optional<Message> await_reply(Channel& channel, std::uint64_t request_id,
                                                 Channel::Clock::time_point deadline,
                                                 std::vector<Message>& notes,
                                                 std::size_t max_notes = kDefaultMaxNotes);

}  // namespace kh
