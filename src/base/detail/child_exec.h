// The code that runs in a forked child between fork() and execve().
//
// The parent may be multithreaded, so after fork() the child may call only
// async-signal-safe functions: no malloc, no locks, no exceptions. Everything it needs
// is therefore prepared in an ExecPlan (and, for a jail, a JailPlan) before fork(), and
// the child only walks through it.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/process_spec.h"
#include "base/unique_fd.h"

namespace kh::detail {

struct JailPlan;

// Descriptors of the parent are moved to this number or above before fork, so that
// installing the child's 0..9 can never overwrite one that is yet to be installed.
inline constexpr int kFirstParkedFd = 10;

// Which step of the child's setup failed; sent to the parent with the errno.
enum class ChildStep : std::int32_t {
  reset_signals,
  wait_for_parent,
  setsid,
  set_pdeathsig,
  set_ids,
  make_mounts_private,
  mount_base,
  pivot_root,
  mount_step,  // ChildFailure::detail is the index into JailPlan::mounts
  switch_root,
  remount_root,
  set_hostname,
  fork_worker,
  redirect_fds,
  close_other_fds,
  chdir,
  setrlimit,  // detail: the RLIMIT_*
  set_no_new_privs,
  landlock,
  seccomp,
  execve,
};

// Written by the child to the exec-error pipe when a step fails.
struct ChildFailure {
  ChildStep step;
  std::int32_t detail;  // see ChildStep; else 0
  std::int32_t error;   // errno
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
  std::string cwd;          // empty: unchanged
  std::vector<ResourceLimit> limits;
  pid_t parent_pid = 0;
  bool die_with_parent = true;
  bool no_new_privs = false;
  // (number in the child, parked descriptor of the parent); stdin, stdout, stderr first.
  std::vector<std::pair<int, int>> fds;
  int error_pipe_fd = -1;  // parked; the child keeps it, close-on-exec, above its descriptors
};

// argv, environment and limits from `spec`; `environment` is the full list of
// NAME=value entries. The descriptors are filled in by the caller (park_fd).
[[nodiscard]] ExecPlan make_exec_plan(const ProcessSpec& spec, std::vector<std::string> environment);

// Moves `fd` to a number >= kFirstParkedFd (close-on-exec), see ExecPlan.
[[nodiscard]] UniqueFd park_fd(UniqueFd fd);

// Runs in the child; never returns. On failure writes a ChildFailure to the error pipe
// and _exit(127)s. With a jail, the child first becomes the jail's init (PID 1 of its
// PID namespace), which forks the process that execs and waits for it.
[[noreturn]] void run_child(const ExecPlan& plan, const JailPlan* jail) noexcept;

// Writes a ChildFailure for `step` (errno as it is now) to `fd` and _exit(127)s.
[[noreturn]] void report_and_exit(int fd, ChildStep step, int detail = 0) noexcept;

// "setrlimit(RLIMIT_AS)", "execve", ...; `jail` names the mount step.
[[nodiscard]] std::string describe_step(const ChildFailure& failure, const JailPlan* jail);

}  // namespace kh::detail
