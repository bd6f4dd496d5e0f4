// The code that runs in the forked child between fork() and execve().
//
// The orchestrator may be multithreaded, so after fork() the child may call only
// async-signal-safe functions: no malloc, no locks, no exceptions. Everything it
// needs is therefore prepared in an ExecPlan before fork(), and the child only
// walks through it.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "worker/spawn_options.h"
#include "worker/unique_fd.h"

namespace kh::detail {

// The descriptor numbers the worker sees.
inline constexpr int kChannelFd = 3;
inline constexpr int kExecErrorFd = 4;  // close-on-exec; gone once execve() succeeds

// Which step of the child's setup failed; sent to the parent with the errno.
enum class ChildStep : std::int32_t {
  reset_signals,
  setsid,
  set_pdeathsig,
  set_no_new_privs,
  redirect_fds,
  close_other_fds,
  chdir,
  setrlimit,
  execve,
};

// Written by the child to the exec-error pipe when a step fails.
struct ChildFailure {
  ChildStep step;
  std::int32_t resource;  // the RLIMIT_* for setrlimit, else 0
  std::int32_t error;     // errno
};

struct ResourceLimit {
  int resource;
  rlimit value;
};

struct ExecPlan {
  std::string path;
  std::vector<std::string> argv_storage;
  std::vector<std::string> env_storage;
  std::vector<char*> argv;  // null-terminated, points into argv_storage
  std::vector<char*> envp;  // null-terminated, points into env_storage
  std::string work_dir;
  std::vector<ResourceLimit> limits;
  pid_t parent_pid = 0;
  // The descriptors the child installs as 0, 1, 2, 3 and 4. All are numbered 10 or
  // above, so installing one can never overwrite another that is yet to be installed.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int channel_fd = -1;
  int error_pipe_fd = -1;
};

// argv, environment and limits from `options`; the descriptors are filled in by the caller.
[[nodiscard]] ExecPlan make_exec_plan(const SpawnOptions& options);

// Moves `fd` to a number >= 10 (close-on-exec), see ExecPlan.
[[nodiscard]] UniqueFd above_fd_ten(UniqueFd fd);

// Runs in the child; never returns. On failure writes a ChildFailure to
// plan.error_pipe_fd and _exit(127)s.
[[noreturn]] void run_child(const ExecPlan& plan) noexcept;

// "setrlimit(RLIMIT_AS)", "execve", ...
[[nodiscard]] std::string describe_step(const ChildFailure& failure);

}  // namespace kh::detail
