// process_gone(): whether a process has ended, for tests that check kills.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace kh::test {

// True when `pid` no longer exists or is a zombie (dead, waiting for whichever
// process inherited it to reap it; in a container PID 1 may never do so).
inline bool process_dead_now(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return false;
  char state = line[close + 2];
  return state == 'Z' || state == 'X';
}

// Waits up to `within` for `pid` to be dead: SIGKILL delivery is asynchronous.
inline bool process_gone(pid_t pid, std::chrono::milliseconds within = std::chrono::milliseconds(2000)) {
  auto end = std::chrono::steady_clock::now() + within;
  for (;;) {
    if (process_dead_now(pid)) return true;
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace kh::test
