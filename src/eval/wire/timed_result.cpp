#include "eval/wire/timed_result.h"

#include <fmt/format.h>

#include <algorithm>

namespace kh {

void LingeringWork::add(const LingeringWork& w) {
  if (w.cpu_ms > cpu_ms || w.threads_ended > threads_ended || w.threads_started > threads_started) {
    cpu_ms = w.cpu_ms;
    threads_ended = w.threads_ended;
    threads_started = w.threads_started;
  }
  periods += w.periods;
  periods_with_work += w.periods_with_work;
}

bool LingeringWork::repeated() const {
  if (periods_with_work == 0) return false;
  return periods_with_work == periods || periods_with_work > std::max(1, periods / 20);
}

std::string LingeringWork::describe() const {
  return fmt::format(
      "{:.2f} ms of CPU on other threads (the worker's or its child processes'), {} thread(s) ended and {} "
      "started after the call returned "
      "(the worst of {} grace period(s) with work, of {})",
      cpu_ms, threads_ended, threads_started, periods_with_work, periods);
}

}  // namespace kh
