// A connected AF_UNIX stream socket pair, both ends close-on-exec.
#pragma once

#include "base/unique_fd.h"

namespace kh {

struct SocketPair {
  UniqueFd parent;  // stays in the orchestrator
  UniqueFd child;   // handed to the worker as fd 3
};

// kh::Error naming socketpair() and errno on failure.
[[nodiscard]] SocketPair make_socket_pair();

}  // namespace kh
