#include "eval/worker_side/thread_activity_probe.h"

#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <thread>

#include "base/process_tree.h"

namespace kh {

namespace {

namespace fs = std::filesystem;

std::optional<std::uint64_t> on_cpu_ns(const fs::path& task) {
  std::ifstream in(task / "schedstat");
  std::uint64_t ns = 0;
  if (in >> ns) return ns;
  return std::nullopt;
}

// A task that has exited but is not yet reaped (state Z or X after the name's closing paren)
// has finished its work: it counts as gone, so that its exit shows as a task that ended.
bool exited(const fs::path& task) {
  std::ifstream in(task / "stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), {});
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return true;
  return stat[paren + 2] == 'Z' || stat[paren + 2] == 'X';
}

}  // namespace

std::map<std::string, std::uint64_t> ThreadActivityProbe::other_threads() {
  const std::string self = std::to_string(static_cast<long>(syscall(SYS_gettid)));
  std::map<std::string, std::uint64_t> threads;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc/self/task", ec)) {
    const std::string tid = entry.path().filename().string();
    if (tid == self) continue;
    if (const auto ns = on_cpu_ns(entry.path())) threads[tid] = *ns;
  }
  // Descendant processes: a clone that shares this process's memory without being one of
  // its threads (CLONE_VM without CLONE_THREAD) writes its outputs as a thread would.
  for (const pid_t pid : descendant_processes(::getpid())) {
    const fs::path process = fs::path("/proc") / std::to_string(pid);
    for (const auto& task : fs::directory_iterator(process / "task", ec)) {
      if (exited(task.path())) continue;
      if (const auto ns = on_cpu_ns(task.path()))
        threads[std::to_string(pid) + "/" + task.path().filename().string()] = *ns;
    }
  }
  return threads;
}

void ThreadActivityProbe::adopt_orphans() {
  // Best effort: without it a double-forked process leaves the tree the probe walks.
  (void)::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
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
