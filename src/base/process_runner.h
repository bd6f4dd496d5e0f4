// run_process: a child run to completion with a wall-clock limit and its output
// captured (compilers, ncu, cuobjdump, an agent's command).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "base/exit_status.h"
#include "base/jail/isolation.h"
#include "base/process_spec.h"

namespace kh {

struct RunOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  bool merge_output = true;  // stderr into `out`, interleaved as written
  // The bound of each captured stream; see OutputCapture for keep_tail.
  std::size_t capture_bytes = 4u << 20;
  bool keep_tail = false;
  // Sees the output as it arrives (uncapped), so that a long run that hangs or is killed
  // leaves a trail.
  std::function<void(std::string_view)> on_output;
};

struct ProcessRun {
  ExitStatus status = ExitStatus::exited(0);
  bool timed_out = false;  // the limit passed and the process group was killed
  std::string out;         // stdout (and stderr when merged), bounded
  std::string err;         // stderr when not merged, bounded
  double seconds = 0;
  Isolation isolation;  // of its jail, when the spec asked for one

  // The exit code, or 128 + the signal that killed it (as a shell reports it).
  [[nodiscard]] int exit_code() const noexcept {
    return status.is_exited() ? status.code() : 128 + status.signal();
  }
};

// Runs `spec` (stdin from /dev/null; its stdout/stderr fields are ignored) until it
// exits and its output closes, or until the limit, when the whole process group is
// killed. After a normal exit what is left of the group (a forgotten background job) is
// killed too, so nothing outlives the call. A program that cannot be executed is a run
// that exited with code 127 and says why in its output, as a shell reports it; kh::Error
// only when no process could be started at all.
[[nodiscard]] ProcessRun run_process(ProcessSpec spec, const RunOptions& options);

}  // namespace kh
