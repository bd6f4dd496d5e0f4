#include "base/detail/child_exec.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "base/jail/detail/jail_plan.h"
#include "base/os_error.h"
#include "error/error.h"

namespace kh::detail {
namespace {

// Ignored signals and the blocked mask survive execve(); the child starts clean.
bool reset_signals() noexcept {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    ::sigaction(sig, &dfl, nullptr);  // EINVAL for the glibc-reserved RT signals: harmless
  }
  sigset_t none;
  sigemptyset(&none);
  return ::sigprocmask(SIG_SETMASK, &none, nullptr) == 0;
}

bool close_other_fds(int first) noexcept {
  if (::close_range(static_cast<unsigned>(first), ~0u, 0) == 0) return true;
  if (errno != ENOSYS) return false;
  rlimit nofile{};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) != 0) return false;
  rlim_t end = nofile.rlim_cur == RLIM_INFINITY ? 65536 : nofile.rlim_cur;
  for (rlim_t fd = static_cast<rlim_t>(first); fd < end; ++fd) ::close(static_cast<int>(fd));
  return true;
}

const char* resource_name(int resource) {
  switch (resource) {
    case RLIMIT_AS:
      return "RLIMIT_AS";
    case RLIMIT_FSIZE:
      return "RLIMIT_FSIZE";
    case RLIMIT_NOFILE:
      return "RLIMIT_NOFILE";
    case RLIMIT_NPROC:
      return "RLIMIT_NPROC";
    case RLIMIT_CPU:
      return "RLIMIT_CPU";
    case RLIMIT_CORE:
      return "RLIMIT_CORE";
    default:
      return "RLIMIT_?";
  }
}

void add_limit(std::vector<ResourceLimit>& out, int resource, const std::optional<std::uint64_t>& value) {
  if (value) out.push_back({resource, rlimit{static_cast<rlim_t>(*value), static_cast<rlim_t>(*value)}});
}

// The descriptors in place: each target from its parked source, then the error pipe
// just above the highest target; everything else closed. Returns the error pipe's
// new number.
int install_fds(const ExecPlan& plan, int err_fd) noexcept {
  int highest = STDERR_FILENO;
  for (const auto& [target, source] : plan.fds) {
    if (::dup2(source, target) < 0) report_and_exit(err_fd, ChildStep::redirect_fds);
    highest = target > highest ? target : highest;
  }
  const int moved_err = highest + 1;
  if (::dup3(err_fd, moved_err, O_CLOEXEC) < 0) report_and_exit(err_fd, ChildStep::redirect_fds);
  if (!close_other_fds(moved_err + 1)) report_and_exit(moved_err, ChildStep::close_other_fds);
  return moved_err;
}

}  // namespace

void report_and_exit(int fd, ChildStep step, int detail) noexcept {
  ChildFailure failure{step, detail, errno};
  // Nothing can be done if this write fails: the parent then sees a plain exit 127.
  ssize_t ignored = ::write(fd, &failure, sizeof failure);
  (void)ignored;
  ::_exit(127);
}

UniqueFd park_fd(UniqueFd fd) {
  if (fd.get() >= kFirstParkedFd) return fd;
  int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, kFirstParkedFd);
  if (moved < 0) throw os_error("fcntl(F_DUPFD_CLOEXEC)");
  return UniqueFd(moved);
}

ExecPlan make_exec_plan(const ProcessSpec& spec, std::vector<std::string> environment) {
  if (spec.argv.empty()) throw Error("cannot start " + spec.role + ": argv is empty");
  ExecPlan plan;
  plan.path = spec.argv.front();
  plan.argv_storage = spec.argv;
  plan.env_storage = std::move(environment);
  plan.cwd = spec.cwd.string();
  plan.parent_pid = ::getpid();
  plan.die_with_parent = spec.die_with_parent;
  plan.no_new_privs = spec.no_new_privs;

  for (auto& arg : plan.argv_storage) plan.argv.push_back(arg.data());
  plan.argv.push_back(nullptr);
  for (auto& var : plan.env_storage) plan.envp.push_back(var.data());
  plan.envp.push_back(nullptr);

  const Limits& limits = spec.limits;
  add_limit(plan.limits, RLIMIT_AS, limits.address_space_bytes);
  add_limit(plan.limits, RLIMIT_FSIZE, limits.file_size_bytes);
  add_limit(plan.limits, RLIMIT_NOFILE, limits.open_files);
  add_limit(plan.limits, RLIMIT_NPROC, limits.processes);
  add_limit(plan.limits, RLIMIT_CPU, limits.cpu_seconds);
  if (!limits.core_dumps) plan.limits.push_back({RLIMIT_CORE, rlimit{0, 0}});
  return plan;
}

void run_child(const ExecPlan& plan, const JailPlan* jail) noexcept {
  int err_fd = plan.error_pipe_fd;
  if (!reset_signals()) report_and_exit(err_fd, ChildStep::reset_signals);
  if (jail != nullptr && jail->namespaces) {
    enter_jail(*jail, err_fd);  // returns in the jail's second process, in its own root
  } else {
    // Its own session and process group: kill(-pid) then reaches everything it forks.
    if (::setsid() < 0) report_and_exit(err_fd, ChildStep::setsid);
    if (jail != nullptr) change_ids(*jail, err_fd);
  }
  if (plan.die_with_parent) {
    // If the parent dies, so does the child. The parent may already have died before
    // prctl() took effect, hence the re-check (in a jail the init watches instead).
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) report_and_exit(err_fd, ChildStep::set_pdeathsig);
    if ((jail == nullptr || !jail->namespaces) && ::getppid() != plan.parent_pid) ::_exit(127);
  }
  err_fd = install_fds(plan, err_fd);
  if (!plan.cwd.empty() && ::chdir(plan.cwd.c_str()) != 0) report_and_exit(err_fd, ChildStep::chdir);
  for (const auto& limit : plan.limits)
    if (::setrlimit(static_cast<__rlimit_resource>(limit.resource), &limit.value) != 0)
      report_and_exit(err_fd, ChildStep::setrlimit, limit.resource);
  if (plan.no_new_privs || jail != nullptr) {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) report_and_exit(err_fd, ChildStep::set_no_new_privs);
  }
  if (jail != nullptr) {
    restrict_self(*jail, err_fd);
    if (jail->probe) ::_exit(0);
  }
  ::execve(plan.path.c_str(), plan.argv.data(), plan.envp.data());
  report_and_exit(err_fd, ChildStep::execve);
}

std::string describe_step(const ChildFailure& failure, const JailPlan* jail) {
  switch (failure.step) {
    case ChildStep::reset_signals:
      return "sigprocmask";
    case ChildStep::wait_for_parent:
      return "waiting for the parent";
    case ChildStep::setsid:
      return "setsid";
    case ChildStep::set_pdeathsig:
      return "prctl(PR_SET_PDEATHSIG)";
    case ChildStep::set_ids:
      return "setresuid/setresgid";
    case ChildStep::make_mounts_private:
      return "mount(/, MS_PRIVATE)";
    case ChildStep::mount_base:
      return "mount(tmpfs) of the jail's base";
    case ChildStep::pivot_root:
      return "pivot_root";
    case ChildStep::mount_step:
      if (jail != nullptr && failure.detail >= 0 &&
          static_cast<std::size_t>(failure.detail) < jail->mounts.size())
        return jail->mounts[static_cast<std::size_t>(failure.detail)].what;
      return "a mount of the jail";
    case ChildStep::switch_root:
      return "pivot_root into the jail";
    case ChildStep::remount_root:
      return "remounting the jail's root read-only";
    case ChildStep::set_hostname:
      return "sethostname";
    case ChildStep::fork_worker:
      return "fork in the jail";
    case ChildStep::redirect_fds:
      return "dup2";
    case ChildStep::close_other_fds:
      return "close_range";
    case ChildStep::chdir:
      return "chdir";
    case ChildStep::setrlimit:
      return std::string("setrlimit(") + resource_name(failure.detail) + ")";
    case ChildStep::set_no_new_privs:
      return "prctl(PR_SET_NO_NEW_PRIVS)";
    case ChildStep::landlock:
      return "landlock";
    case ChildStep::seccomp:
      return "seccomp";
    case ChildStep::execve:
      return "execve";
  }
  return "unknown step";
}

}  // namespace kh::detail
