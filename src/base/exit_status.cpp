#include "base/exit_status.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <cstring>

#include "error/error.h"

namespace kh {

ExitStatus ExitStatus::from_wait_status(int status) {
  if (WIFEXITED(status)) return exited(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return signalled(WTERMSIG(status), WCOREDUMP(status));
  throw Error(fmt::format("wait status {:#x} is neither an exit nor a signal", status));
}

std::string ExitStatus::describe() const {
  if (!signalled_) return fmt::format("exited with code {}", value_);
  // sigdescr_np is the thread-safe strsignal(); it returns null for unknown signals.
  const char* name = ::sigdescr_np(value_);
  return fmt::format("killed by signal {} ({}){}", value_, name ? name : "unknown signal",
                     core_ ? ", core dumped" : "");
}

}  // namespace kh
