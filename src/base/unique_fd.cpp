#include "base/unique_fd.h"

#include <unistd.h>

namespace kh {

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

}  // namespace kh
