#include "worker/socket_pair.h"

#include <sys/socket.h>

#include "base/os_error.h"

namespace kh {

SocketPair make_socket_pair() {
  int fds[2];
  // CLOEXEC: a process that another thread of the orchestrator spawns must not
  // inherit either end, or a worker's EOF would never be seen.
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) throw os_error("socketpair");
  return SocketPair{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

}  // namespace kh
