// Runs one shell command for the cli agent: in a given folder, in its own process group,
// with a wall-clock limit, stdout and stderr captured up to a bound.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>

#include "worker/exit_status.h"

namespace kh::agents::detail {

// Keeps the first and the last `limit / 2` bytes of a stream and counts the rest, so a
// chatty agent cannot fill memory and both its start and its final words survive.
class BoundedCapture {
 public:
  explicit BoundedCapture(std::size_t limit) : half_(limit / 2) {}
  void append(std::string_view data);
  [[nodiscard]] std::string text() const;
  [[nodiscard]] std::size_t dropped() const { return dropped_; }

 private:
  std::size_t half_;
  std::string head_;
  std::string tail_;
  std::size_t dropped_ = 0;
};

struct CommandRun {
  ExitStatus status = ExitStatus::exited(0);
  bool timed_out = false;  // the group was killed at the deadline
  std::string out;         // captured stdout (bounded)
  std::string err;         // captured stderr (bounded)
  double seconds = 0;
};

// `/bin/sh -c command` with `cwd` as working directory and stdin from /dev/null. On
// timeout the whole process group gets SIGKILL; after a normal exit what is left of the
// group (a forgotten background job) gets SIGKILL too, so nothing outlives the call.
// Throws kh::Error when the process cannot be started.
[[nodiscard]] CommandRun run_command(const std::string& command, const std::filesystem::path& cwd,
                                     std::chrono::milliseconds timeout, std::size_t capture_bytes);

}  // namespace kh::agents::detail
