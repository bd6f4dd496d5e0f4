// ChildProcess: one started child process, in its own process group (and, when its
// spec asks for one, in a jail), killed whole and reaped by its owner.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>

#include "base/exit_status.h"
#include "base/jail/isolation.h"
#include "base/process_spec.h"
#include "base/unique_fd.h"

namespace kh {

class ChildProcess {
 public:
  using Clock = std::chrono::steady_clock;

  // fork + exec as `spec` says. Returns once the program is running. With a jail, at
  // the spec's mode (sandbox_mode() unless set): strict builds the full jail or throws;
  // best builds the strongest jail this machine allows, a weaker one (recorded in
  // isolation().notes) when a stronger one cannot be built; off runs it unjailed.
  // kh::Error when it cannot start: "cannot start worker './w': No such file or directory".
  [[nodiscard]] static ChildProcess spawn(const ProcessSpec& spec);

  // Kills the process group and reaps the child: no zombie, no stray grandchild.
  ~ChildProcess();
  // Move-only: one owner reaps the process and kills its group exactly once.
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;

  // The child's pid. In a jail, that of the jail's init (PID 1 inside): killing it ends
  // every process in the jail.
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  // The process that runs the program: pid() itself, or in a jail with its own PID
  // namespace the init's one child, as it was when spawn() returned (before the program
  // could start any process of its own). Both in this process's PID namespace.
  [[nodiscard]] pid_t program_pid() const noexcept { return program_pid_; }
  [[nodiscard]] const Isolation& isolation() const noexcept { return isolation_; }

  // SIGKILL to the whole process group (never SIGTERM: a candidate may ignore it),
  // then reap. Returns how the child ended (possibly before the kill).
  ExitStatus kill();
  // The exit status once the child has ended, without blocking. Reaping also SIGKILLs
  // what is left of the process group, so a child that exits on its own cannot leave
  // a forked grandchild running.
  [[nodiscard]] std::optional<ExitStatus> try_wait();
  // Blocks until the child ends.
  ExitStatus wait();
  // Like wait(), but gives up (nullopt) at `deadline`.
  [[nodiscard]] std::optional<ExitStatus> wait_until(Clock::time_point deadline);
  // How it ended, if it has been reaped.
  [[nodiscard]] const std::optional<ExitStatus>& exit_status() const noexcept { return status_; }

 private:
  ChildProcess(pid_t pid, pid_t program_pid, UniqueFd status, Isolation isolation);
  // Kill the group while the leader is an unreaped zombie (its pid cannot be reused
  // yet), then reap. In a jail, the status is the worker's, as its init reported it.
  ExitStatus reap_exited();
  void release() noexcept;

  pid_t pid_ = -1;
  pid_t program_pid_ = -1;
  UniqueFd jail_status_;
  Isolation isolation_;
  std::optional<ExitStatus> status_;
};

}  // namespace kh
