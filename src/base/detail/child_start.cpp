#include "base/detail/child_start.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "base/detail/child_exec.h"
#include "base/fd_pipe.h"
#include "base/jail/detail/jail_plan.h"
#include "base/jail/environment_allow_list.h"
#include "base/os_error.h"
#include "base/process_group_registry.h"
#include "base/process_tree.h"
#include "error/error.h"

extern char** environ;

namespace kh::detail {
namespace {

// A parked copy of the parent's descriptor (or of /dev/null for -1), owned here.
UniqueFd parked_copy(int fd) {
  if (fd < 0) {
    const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0) throw os_error("open(/dev/null)");
    return park_fd(UniqueFd(null_fd));
  }
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, kFirstParkedFd);
  if (copy < 0) throw os_error(fmt::format("fcntl({}, F_DUPFD_CLOEXEC)", fd));
  return UniqueFd(copy);
}

std::vector<std::string> environment_of(const ProcessSpec& spec, const JailPlan* jail) {
  if (jail != nullptr) {
    std::vector<std::pair<std::string, std::string>> set;
    const std::string scratch = spec.jail->scratch.string();
    if (!scratch.empty())
      for (const char* name : {"HOME", "TMPDIR", "XDG_CACHE_HOME"}) set.emplace_back(name, scratch);
    set.insert(set.end(), spec.env.begin(), spec.env.end());
    return jail_environment(spec.jail->env_names, set, !jail->isolation.environment_allow_list);
  }
  std::vector<std::string> out;
  auto overridden = [&](std::string_view name) {
    for (const auto& [key, value] : spec.env)
      if (key == name) return true;
    return false;
  };
  if (spec.inherit_env) {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      const std::string_view text(*entry);
      if (!overridden(text.substr(0, text.find('=')))) out.emplace_back(text);
    }
  }
  for (const auto& [key, value] : spec.env) out.push_back(std::string(key).append("=").append(value));
  return out;
}

void check_env_names(const ProcessSpec& spec) {
  for (const auto& [key, value] : spec.env)
    if (key.empty() || key.find('=') != std::string::npos)
      throw Error("cannot start " + spec.role + ": bad environment variable name '" + key + "'");
}

void write_file(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw os_error("open(" + path + ")");
  UniqueFd file(fd);
  if (::write(file.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw os_error("write(" + path + ")");
}

// The jail's user must be able to write where the jail writes (root's children run as
// an unprivileged user).
void hand_over_writable_folders(const ProcessSpec& spec, const JailPlan& jail) {
  if (jail.uid == ::geteuid() || !jail.change_ids) return;
  std::vector<std::filesystem::path> dirs = spec.jail->writable;
  if (!jail.namespaces || !spec.jail->scratch_bytes) dirs.push_back(spec.jail->scratch);
  for (const auto& dir : dirs)
    if (!dir.empty() && ::chown(dir.c_str(), jail.uid, jail.gid) != 0)
      throw os_error("chown(" + dir.string() + ") for the jail's user");
}

// Reads the child's ChildFailure, or nothing when execve() succeeded (the pipe's write
// end was close-on-exec). Returns the number of bytes read.
std::size_t read_failure(int fd, ChildFailure& failure) {
  auto* out = reinterpret_cast<char*>(&failure);
  std::size_t got = 0;
  while (got < sizeof failure) {
    const ssize_t n = ::read(fd, out + got, sizeof failure - got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw os_error("read(exec-error pipe)");
    }
    got += static_cast<std::size_t>(n);
  }
  return got;
}

void kill_and_reap(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  untrack_child_group(pid);
}

// In its own PID namespace the jail's init forks the program before the exec is reported
// (the report is the program's), so the init's one child then is the program.
pid_t program_of(pid_t pid, const JailPlan* jail) {
  if (jail == nullptr || !jail->namespaces) return pid;
  const std::vector<pid_t> children = child_processes(pid);
  return children.size() == 1 ? children.front() : pid;
}

bool is_jail_step(ChildStep step) {
  return step != ChildStep::execve && step != ChildStep::chdir && step != ChildStep::setrlimit &&
         step != ChildStep::redirect_fds && step != ChildStep::close_other_fds;
}

// fork(), or clone() into the jail's namespaces, with the termination signals blocked
// so that no signal can kill kharness between the child's birth and its tracking.
pid_t fork_tracked(const ExecPlan& plan, const JailPlan* jail) {
  sigset_t terminating;
  sigset_t before;
  sigemptyset(&terminating);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&terminating, sig);
  ::pthread_sigmask(SIG_BLOCK, &terminating, &before);
  const pid_t pid = jail != nullptr && jail->namespaces
                        ? static_cast<pid_t>(::syscall(SYS_clone, jail->clone_flags | SIGCHLD, 0, 0, 0, 0))
                        : ::fork();
  if (pid == 0) run_child(plan, jail);
  const int fork_errno = errno;
  if (pid > 0) track_child_group(pid);
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  errno = fork_errno;
  return pid;
}

}  // namespace

StartAttempt start_child(const ProcessSpec& spec, const JailPlan* jail_in) {
  check_env_names(spec);
  ExecPlan plan = make_exec_plan(spec, environment_of(spec, jail_in));
  if (plan.path.find('/') != std::string::npos) plan.path = std::filesystem::absolute(plan.path).string();

  std::vector<UniqueFd> parked;
  const int std_fds[] = {spec.stdin_fd, spec.stdout_fd, spec.stderr_fd};
  for (int target = 0; target < 3; ++target) {
    parked.push_back(parked_copy(std_fds[target]));
    plan.fds.emplace_back(target, parked.back().get());
  }
  for (const auto& [target, source] : spec.extra_fds) {
    if (target < 3 || target >= kFirstParkedFd)
      throw Error(fmt::format("cannot start {}: descriptor {} is outside 3..9", spec.role, target));
    parked.push_back(parked_copy(source));
    plan.fds.emplace_back(target, parked.back().get());
  }
  FdPipe report = make_fd_pipe();
  UniqueFd report_write = park_fd(std::move(report.write));
  plan.error_pipe_fd = report_write.get();

  std::optional<JailPlan> jail_copy;
  FdPipe sync;
  FdPipe status;
  UniqueFd sync_read;
  UniqueFd status_write;
  if (jail_in != nullptr) {
    jail_copy = *jail_in;
    hand_over_writable_folders(spec, *jail_copy);
    if (jail_copy->namespaces) {
      sync = make_fd_pipe();
      status = make_fd_pipe();
      sync_read = park_fd(std::move(sync.read));
      status_write = park_fd(std::move(status.write));
      jail_copy->sync_fd = sync_read.get();
      jail_copy->status_fd = status_write.get();
    }
  }
  const JailPlan* jail = jail_copy ? &*jail_copy : nullptr;

  const pid_t pid = fork_tracked(plan, jail);
  if (pid < 0) throw os_error(jail != nullptr && jail->namespaces ? "clone (namespaces)" : "fork");
  // Only the child may hold these now; keeping the report's write end open here would
  // make the read below wait forever.
  report_write.reset();
  sync_read.reset();
  status_write.reset();
  parked.clear();

  if (jail != nullptr && jail->namespaces) {
    try {
      const std::string proc = "/proc/" + std::to_string(pid);
      if (jail->deny_setgroups) write_file(proc + "/setgroups", "deny");
      write_file(proc + "/uid_map", jail->uid_map);
      write_file(proc + "/gid_map", jail->gid_map);
    } catch (const Error& e) {
      kill_and_reap(pid);
      return StartAttempt{std::nullopt, std::string("user namespace id maps: ") + e.what()};
    }
    if (::write(sync.write.get(), "g", 1) != 1) {
      kill_and_reap(pid);
      throw os_error("write(jail sync pipe)");
    }
    sync.write.reset();
  }

  ChildFailure failure{};
  const std::size_t got = read_failure(report.read.get(), failure);
  if (got == 0) return StartAttempt{StartedChild{pid, program_of(pid, jail), std::move(status.read)}, {}};
  kill_and_reap(pid);
  if (got != sizeof failure)
    throw Error(fmt::format("cannot start {} '{}': setup failed", spec.role, spec.argv.front()));
  const std::string why = errno_text(failure.error);
  if (jail != nullptr && is_jail_step(failure.step))
    return StartAttempt{std::nullopt, describe_step(failure, jail) + ": " + why};
  const std::string step = failure.step == ChildStep::execve ? "" : describe_step(failure, jail) + ": ";
  throw Error(fmt::format("cannot start {} '{}': {}{}", spec.role, spec.argv.front(), step, why));
}

}  // namespace kh::detail
