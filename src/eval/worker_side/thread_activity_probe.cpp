#include "eval/worker_side/thread_activity_probe.h"

#include <fmt/format.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace kh {

std::map<std::string, std::uint64_t> ThreadActivityProbe::other_threads() {
  const std::string self = std::to_string(static_cast<long>(syscall(SYS_gettid)));
  std::map<std::string, std::uint64_t> threads;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    const std::string tid = entry.path().filename().string();
    if (tid == self) continue;
    std::ifstream in(entry.path() / "schedstat");
    std::uint64_t on_cpu_ns = 0;
    if (in >> on_cpu_ns) threads[tid] = on_cpu_ns;
  }
  return threads;
}

ThreadActivityProbe ThreadActivityProbe::open() {
  ThreadActivityProbe p;
  p.before_ = other_threads();
  p.opened_ = std::chrono::steady_clock::now();
  return p;
}

LingeringWork ThreadActivityProbe::after_call(std::chrono::microseconds grace) { return open().close(grace); }

LingeringWork ThreadActivityProbe::close(std::chrono::microseconds grace) const {
  std::this_thread::sleep_until(opened_ + grace);
  const auto& before = before_;
  const auto after = other_threads();
  LingeringWork w;
  std::uint64_t burnt_ns = 0;
  for (const auto& [tid, ns] : before) {
    auto it = after.find(tid);
    if (it == after.end()) {
      ++w.threads_ended;
    } else if (it->second > ns) {
      burnt_ns += it->second - ns;
    }
  }
  for (const auto& [tid, ns] : after) {
    if (!before.contains(tid)) {
      ++w.threads_started;
      burnt_ns += ns;
    }
  }
  w.cpu_ms = static_cast<double>(burnt_ns) / 1e6;
  w.periods = 1;
  w.periods_with_work = w.work() ? 1 : 0;
  return w;
}

}  // namespace kh
