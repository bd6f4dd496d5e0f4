#include "base/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <utility>

#include "base/detail/child_start.h"
#include "base/jail/isolation_probe.h"
#include "base/jail/jail_plan.h"
#include "base/os_error.h"
#include "base/process_group_registry.h"
#include "error/error.h"

namespace kh {
namespace {

void kill_group(pid_t pid) {
  if (::kill(-pid, SIGKILL) != 0 && errno != ESRCH) throw os_error(fmt::format("kill(-{}, SIGKILL)", pid));
  ::kill(pid, SIGKILL);
}

int waitpid_checked(pid_t pid, int options) {
  for (;;) {
    int status = 0;
    const pid_t rc = ::waitpid(pid, &status, options);
    if (rc == pid) return status;
    if (rc == 0) return -1;  // WNOHANG and still running
    if (errno != EINTR) throw os_error(fmt::format("waitpid({})", pid));
  }
}

// True once the process has ended; the zombie stays unreaped (WNOWAIT).
bool has_exited(pid_t pid, bool block) {
  for (;;) {
    siginfo_t info{};
    const int options = WEXITED | WNOWAIT | (block ? 0 : WNOHANG);
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, options) == 0) return info.si_pid != 0;
    if (errno != EINTR) throw os_error(fmt::format("waitid({})", pid));
  }
}

// The worker's wait status as the jail's init wrote it before exiting, if it did.
std::optional<int> reported_status(int fd) {
  if (fd < 0) return std::nullopt;
  int status = 0;
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 0) != 1) return std::nullopt;
  if (::read(fd, &status, sizeof status) != static_cast<ssize_t>(sizeof status)) return std::nullopt;
  return status;
}

}  // namespace

ChildProcess ChildProcess::spawn(const ProcessSpec& spec) {
  auto started = [&](detail::StartAttempt attempt, Isolation isolation) -> std::optional<ChildProcess> {
    if (!attempt.child) return std::nullopt;
    return ChildProcess(attempt.child->pid, attempt.child->program, std::move(attempt.child->status),
                        std::move(isolation));
  };
  if (!spec.jail) {
    Isolation none;
    return *started(detail::start_child(spec, nullptr), none);
  }
  const SandboxMode mode = spec.jail->mode.value_or(sandbox_mode());
  if (mode == SandboxMode::off) {
    Isolation none;
    none.mode = "off";
    ProcessSpec plain = spec;
    plain.jail.reset();
    return *started(detail::start_child(plain, nullptr), none);
  }
  const JailLadder ladder = jail_ladder(mode);
  std::vector<std::string> notes = ladder.notes;
  for (const JailChoice& choice : ladder.choices) {
    if (choice.level == IsolationLevel::namespaces && !spec.jail->allow_namespaces) {
      if (mode == SandboxMode::strict)
        throw Error(fmt::format("--sandbox strict: {} '{}' was asked to run without namespaces", spec.role,
                                spec.argv.front()));
      continue;
    }
    detail::JailPlan plan = make_jail_plan(*spec.jail, choice);
    plan.isolation.notes.insert(plan.isolation.notes.begin(), notes.begin(), notes.end());
    detail::StartAttempt attempt = detail::start_child(spec, &plan);
    if (attempt.child) return *started(std::move(attempt), plan.isolation);
    if (mode == SandboxMode::strict)
      throw Error(fmt::format("--sandbox strict: cannot build the jail for {} '{}': {}", spec.role,
                              spec.argv.front(), attempt.jail_failure));
    notes.push_back(fmt::format("{} jail failed ({}); fell back", isolation_level_name(choice.level),
                                attempt.jail_failure));
  }
  throw Error(fmt::format("cannot start {} '{}' in any jail: {}", spec.role, spec.argv.front(),
                          fmt::join(notes, "; ")));
}

ChildProcess::ChildProcess(pid_t pid, pid_t program_pid, UniqueFd status, Isolation isolation)
    : pid_(pid),
      program_pid_(program_pid),
      jail_status_(std::move(status)),
      isolation_(std::move(isolation)) {}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      program_pid_(std::exchange(other.program_pid_, -1)),
      jail_status_(std::move(other.jail_status_)),
      isolation_(std::move(other.isolation_)),
      status_(other.status_) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = std::exchange(other.pid_, -1);
    program_pid_ = std::exchange(other.program_pid_, -1);
    jail_status_ = std::move(other.jail_status_);
    isolation_ = std::move(other.isolation_);
    status_ = other.status_;
  }
  return *this;
}

ChildProcess::~ChildProcess() { release(); }

void ChildProcess::release() noexcept {
  if (pid_ < 0 || status_) return;
  // kill(2) and waitpid(2) on our own unreaped child fail only on programming errors
  // (EINVAL, ECHILD); a destructor has no one to report them to.
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  untrack_child_group(pid_);
}

ExitStatus ChildProcess::reap_exited() {
  kill_group(pid_);
  const int own = waitpid_checked(pid_, 0);
  untrack_child_group(pid_);
  status_ = ExitStatus::from_wait_status(reported_status(jail_status_.get()).value_or(own));
  return *status_;
}

ExitStatus ChildProcess::kill() {
  if (status_) return *status_;
  kill_group(pid_);
  return wait();
}

std::optional<ExitStatus> ChildProcess::try_wait() {
  if (status_) return status_;
  if (!has_exited(pid_, /*block=*/false)) return std::nullopt;
  return reap_exited();
}

ExitStatus ChildProcess::wait() {
  if (status_) return *status_;
  has_exited(pid_, /*block=*/true);
  return reap_exited();
}

std::optional<ExitStatus> ChildProcess::wait_until(Clock::time_point deadline) {
  // Polling is enough here: it is used for short grace periods only.
  auto step = std::chrono::milliseconds(1);
  for (;;) {
    if (auto status = try_wait()) return status;
    const auto now = Clock::now();
    if (now >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::min<Clock::duration>(step, deadline - now));
    step = std::min(step * 2, std::chrono::milliseconds(20));
  }
}

}  // namespace kh
