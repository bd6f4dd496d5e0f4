// A child process that does nothing until it is killed, for tests of the process tree: it is
// killed and reaped when the object goes.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace kh::test {

struct PausedChild {
  pid_t pid = ::fork();
  PausedChild() {
    if (pid == 0) {
      ::pause();
      ::_exit(0);
    }
  }
  ~PausedChild() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  PausedChild(const PausedChild&) = delete;
  PausedChild& operator=(const PausedChild&) = delete;
};

// Whether this kernel lists a thread's children in /proc (CONFIG_PROC_CHILDREN): without
// it no process has descendants to find.
inline bool proc_lists_children() {
  return std::filesystem::exists(std::filesystem::path("/proc/self/task") / std::to_string(::getpid()) /
                                 "children");
}

}  // namespace kh::test
