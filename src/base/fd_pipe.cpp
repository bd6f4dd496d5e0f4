#include "base/fd_pipe.h"

#include <fcntl.h>
#include <unistd.h>

#include "base/os_error.h"

namespace kh {

FdPipe make_fd_pipe(bool nonblocking_read) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw os_error("pipe2");
  FdPipe pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
  if (nonblocking_read && ::fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) throw os_error("fcntl(O_NONBLOCK)");
  return pipe;
}

}  // namespace kh
