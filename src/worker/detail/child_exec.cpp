#include "worker/detail/child_exec.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "error/error.h"
#include "worker/detail/os_error.h"

extern char** environ;

namespace kh::detail {
namespace {

constexpr std::string_view kChannelFdVariable = "KHARNESS_CHANNEL_FD";

[[noreturn]] void report_and_exit(int pipe_fd, ChildStep step, int resource = 0) noexcept {
  ChildFailure failure{step, resource, errno};
  // Nothing can be done if this write fails: the parent then sees a plain exit 127.
  ssize_t ignored = ::write(pipe_fd, &failure, sizeof failure);
  (void)ignored;
  ::_exit(127);
}

// Ignored signals and the blocked mask survive execve(); the worker starts clean.
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

std::string_view variable_name(std::string_view entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

UniqueFd above_fd_ten(UniqueFd fd) {
  if (fd.get() >= 10) return fd;
  int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, 10);
  if (moved < 0) throw os_error("fcntl(F_DUPFD_CLOEXEC)");
  return UniqueFd(moved);
}

ExecPlan make_exec_plan(const SpawnOptions& options) {
  if (options.argv.empty()) throw Error("cannot start worker: argv is empty");
  ExecPlan plan;
  plan.path = options.argv.front();
  plan.argv_storage = options.argv;
  plan.work_dir = options.work_dir.string();
  plan.parent_pid = ::getpid();

  auto overridden = [&](std::string_view name) {
    if (name == kChannelFdVariable) return true;
    for (const auto& [key, value] : options.env_add)
      if (key == name) return true;
    return false;
  };
  if (options.inherit_env) {
    for (char** entry = environ; entry && *entry; ++entry)
      if (!overridden(variable_name(*entry))) plan.env_storage.emplace_back(*entry);
  }
  for (const auto& [key, value] : options.env_add) {
    if (key.empty() || key.find('=') != std::string::npos || key == kChannelFdVariable)
      throw Error("cannot start worker: bad environment variable name '" + key + "'");
    plan.env_storage.push_back(key + "=" + value);
  }
  plan.env_storage.push_back(std::string(kChannelFdVariable) + "=" + std::to_string(kChannelFd));

  for (auto& arg : plan.argv_storage) plan.argv.push_back(arg.data());
  plan.argv.push_back(nullptr);
  for (auto& var : plan.env_storage) plan.envp.push_back(var.data());
  plan.envp.push_back(nullptr);

  const Limits& limits = options.limits;
  add_limit(plan.limits, RLIMIT_AS, limits.address_space_bytes);
  add_limit(plan.limits, RLIMIT_FSIZE, limits.file_size_bytes);
  add_limit(plan.limits, RLIMIT_NOFILE, limits.open_files);
  add_limit(plan.limits, RLIMIT_NPROC, limits.processes);
  add_limit(plan.limits, RLIMIT_CPU, limits.cpu_seconds);
  if (!limits.core_dumps) plan.limits.push_back({RLIMIT_CORE, rlimit{0, 0}});
  return plan;
}

void run_child(const ExecPlan& plan) noexcept {
  const int err_fd = plan.error_pipe_fd;
  if (!reset_signals()) report_and_exit(err_fd, ChildStep::reset_signals);
  // Its own session and process group: kill(-pid) then reaches everything it forks.
  if (::setsid() < 0) report_and_exit(err_fd, ChildStep::setsid);
  // If the orchestrator dies, the worker dies. The parent may already have died
  // before prctl() took effect, hence the re-check.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) report_and_exit(err_fd, ChildStep::set_pdeathsig);
  if (::getppid() != plan.parent_pid) ::_exit(127);
  // No setuid/setcap binary can raise the privileges of anything the worker execs.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) report_and_exit(err_fd, ChildStep::set_no_new_privs);

  if (::dup2(plan.stdin_fd, STDIN_FILENO) < 0 || ::dup2(plan.stdout_fd, STDOUT_FILENO) < 0 ||
      ::dup2(plan.stderr_fd, STDERR_FILENO) < 0 || ::dup2(plan.channel_fd, kChannelFd) < 0 ||
      ::dup3(err_fd, kExecErrorFd, O_CLOEXEC) < 0)
    report_and_exit(err_fd, ChildStep::redirect_fds);
  if (!close_other_fds(kExecErrorFd + 1)) report_and_exit(kExecErrorFd, ChildStep::close_other_fds);

  if (::chdir(plan.work_dir.c_str()) != 0) report_and_exit(kExecErrorFd, ChildStep::chdir);
  for (const auto& limit : plan.limits)
    if (::setrlimit(static_cast<__rlimit_resource>(limit.resource), &limit.value) != 0)
      report_and_exit(kExecErrorFd, ChildStep::setrlimit, limit.resource);

  ::execve(plan.path.c_str(), plan.argv.data(), plan.envp.data());
  report_and_exit(kExecErrorFd, ChildStep::execve);
}

std::string describe_step(const ChildFailure& failure) {
  switch (failure.step) {
    case ChildStep::reset_signals:
      return "sigprocmask";
    case ChildStep::setsid:
      return "setsid";
    case ChildStep::set_pdeathsig:
      return "prctl(PR_SET_PDEATHSIG)";
    case ChildStep::set_no_new_privs:
      return "prctl(PR_SET_NO_NEW_PRIVS)";
    case ChildStep::redirect_fds:
      return "dup2";
    case ChildStep::close_other_fds:
      return "close_range";
    case ChildStep::chdir:
      return "chdir";
    case ChildStep::setrlimit:
      return std::string("setrlimit(") + resource_name(failure.resource) + ")";
    case ChildStep::execve:
      return "execve";
  }
  return "unknown step";
}

}  // namespace kh::detail
