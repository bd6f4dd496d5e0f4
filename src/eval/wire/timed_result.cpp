#include "eval/wire/timed_result.h"

#include <fmt/format.h>

namespace kh {

std::string LingeringWork::describe() const {
  return fmt::format(
      "{:.2f} ms of CPU on other threads, {} thread(s) ended and {} started after the call returned", cpu_ms,
      threads_ended, threads_started);
}

}  // namespace kh
