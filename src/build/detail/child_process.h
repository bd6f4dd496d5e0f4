// Runs a compiler as a child process with a wall-clock limit.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kh::detail {

struct ProcessOutcome {
  int exit_code = -1;      // the exit status, or 128+signal when killed by a signal
  bool timed_out = false;  // the limit passed and the process group was killed
  std::string output;      // stdout and stderr interleaved, capped (see kMaxOutput)
  double seconds = 0;
};

// Output beyond this is dropped (the head is kept: a compiler's first errors are the
// useful ones) and a note is appended, so a runaway template error cannot fill memory.
inline constexpr std::size_t kMaxOutput = 4u << 20;

// Runs argv[0] (an absolute path; PATH is not searched) with `argv` in `cwd`, stdin
// from /dev/null. The child leads its own process group, so on timeout the whole
// group (nvcc's cicc, ptxas, ...) is killed with SIGKILL. Throws kh::Error if the
// process cannot be started. `on_output`, when set, also sees the output as it arrives
// (uncapped), so that a long run that hangs or is killed leaves a trail.
[[nodiscard]] ProcessOutcome run_process(const std::vector<std::string>& argv,
                                         const std::filesystem::path& cwd, std::chrono::milliseconds timeout,
                                         const std::function<void(std::string_view)>& on_output = {});

}  // namespace kh::detail
