// FdPipe: both ends of one pipe, each owned.
#pragma once

#include "base/unique_fd.h"

namespace kh {

struct FdPipe {
  UniqueFd read;
  UniqueFd write;
};

// A pipe whose ends close on exec (O_CLOEXEC): a child started concurrently by another
// thread must not inherit a write end, or a reader of this pipe would wait for that other
// child to finish. nonblocking_read: the read end returns EAGAIN instead of waiting (for
// readers that poll several pipes). Throws on failure.
FdPipe make_fd_pipe(bool nonblocking_read = false);

}  // namespace kh
