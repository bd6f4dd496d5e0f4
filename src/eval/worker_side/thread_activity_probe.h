// ThreadActivityProbe: did any other thread of this process keep working after the
// candidate's call returned?
//
// On the CPU backend there is no device to synchronise, so work handed to a helper
// thread would escape the timer. The probe reads each thread's on-CPU nanoseconds
// (/proc/self/task/<tid>/schedstat) at the start and end of a short grace period
// after the call. CPU time burnt by other threads in that period, or a thread that
// appears or ends in it, means the call returned before its work was done.
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
  // open() then close(grace).
  [[nodiscard]] static LingeringWork after_call(std::chrono::microseconds grace);

 private:
  // tid -> on-CPU ns, for every thread except the caller.
  [[nodiscard]] static std::map<std::string, std::uint64_t> other_threads();

  std::map<std::string, std::uint64_t> before_;
  std::chrono::steady_clock::time_point opened_;
};

}  // namespace kh
