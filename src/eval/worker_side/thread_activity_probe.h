// ThreadActivityProbe: did any other thread of this process, or any thread of a process
// it started, keep working after the candidate's call returned?
//
// On the CPU backend there is no device to synchronise, so work handed to a helper
// thread would escape the timer; so would work handed to a child process that shares the
// worker's memory (clone with CLONE_VM, not CLONE_THREAD: no thread of this process, yet
// its writes land in the outputs). The probe reads the on-CPU nanoseconds of each thread
// (/proc/self/task/<tid>/schedstat) and of each task of every descendant process (found
// through /proc/<pid>/task/<tid>/children) at the start and end of a short grace period
// after the call. CPU time burnt by them in that period, or one that appears or ends
// (exits, even unreaped) in it, means the call returned before its work was done.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "eval/wire/timed_result.h"

namespace kh {

class ThreadActivityProbe {
 public:
  // Opens a grace period now (right after a call returned): reads the other threads.
  [[nodiscard]] static ThreadActivityProbe open();
  // Closes it once at least `grace` has passed since open(), sleeping only for what is
  // left: the harness's own work in between (the next iteration's poisoning and cache
  // flush, on the calling thread) counts toward the grace period instead of adding to it.
  [[nodiscard]] LingeringWork close(std::chrono::microseconds grace) const;
  // Makes this process the subreaper of its descendants, so that a double-forked one stays
  // in the tree the probe walks instead of passing to init. Called once at worker start.
  static void adopt_orphans();
  // open() then close(grace).
  [[nodiscard]] static LingeringWork after_call(std::chrono::microseconds grace);

 private:
  // tid (or pid/tid for a descendant's task) -> on-CPU ns, for every live task but the caller.
  [[nodiscard]] static std::map<std::string, std::uint64_t> other_threads();

  std::map<std::string, std::uint64_t> before_;
  std::chrono::steady_clock::time_point opened_;
};

}  // namespace kh
