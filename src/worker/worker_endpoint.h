// The worker's side: the channel it inherited, and a request loop.
#pragma once

#include <functional>

#include "worker/channel.h"
#include "worker/message.h"

namespace kh {

// The channel on the descriptor named by KHARNESS_CHANNEL_FD. kh::Error if the
// variable is missing or not a number, or the descriptor is not a socket. Marks the
// descriptor close-on-exec, so no program the worker (or a candidate) execs inherits it.
[[nodiscard]] Channel open_inherited_channel(ChannelOptions options = {.peer_name = "orchestrator"});

using RequestHandler = std::function<Message(const Message& request)>;

// Answers requests until a "shutdown" request or EOF. Each reply carries the
// request's id. A handler that throws is answered with {"kind":"error","message":
// what()}, so the orchestrator learns why; the loop goes on. `after_reply`, when given,
// runs after each reply is sent, while the orchestrator reads it.
void serve(Channel& channel, const RequestHandler& handler, const std::function<void()>& after_reply = {});

}  // namespace kh
