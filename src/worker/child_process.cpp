#include "worker/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>
#include <thread>
#include <utility>

#include "error/error.h"
#include "worker/detail/child_exec.h"
#include "worker/detail/os_error.h"
#include "worker/socket_pair.h"

namespace kh {
namespace {

UniqueFd open_checked(const std::filesystem::path& path, int flags, mode_t mode = 0) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) throw detail::os_error("open(" + path.string() + ")");
  return UniqueFd(fd);
}

UniqueFd open_log(const std::filesystem::path& path) {
  return detail::above_fd_ten(open_checked(path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
}

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw detail::os_error("pipe2");
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// Reads the child's ChildFailure, or nothing when execve() succeeded (the pipe's
// write end was close-on-exec). Returns the number of bytes read.
std::size_t read_exec_report(int fd, detail::ChildFailure& failure) {
  auto* out = reinterpret_cast<char*>(&failure);
  std::size_t got = 0;
  while (got < sizeof failure) {
    ssize_t n = ::read(fd, out + got, sizeof failure - got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw detail::os_error("read(exec-error pipe)");
    }
    got += static_cast<std::size_t>(n);
  }
  return got;
}

void kill_group(pid_t pgid) {
  if (::kill(-pgid, SIGKILL) != 0 && errno != ESRCH)
    throw detail::os_error(fmt::format("kill(-{}, SIGKILL)", pgid));
}

int waitpid_checked(pid_t pid, int options) {
  for (;;) {
    int status = 0;
    pid_t rc = ::waitpid(pid, &status, options);
    if (rc == pid) return status;
    if (rc == 0) return -1;  // WNOHANG and still running
    if (errno != EINTR) throw detail::os_error(fmt::format("waitpid({})", pid));
  }
}

// True once the process has ended; the zombie stays unreaped (WNOWAIT).
bool has_exited(pid_t pid, bool block) {
  for (;;) {
    siginfo_t info{};
    int options = WEXITED | WNOWAIT | (block ? 0 : WNOHANG);
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, options) == 0) return info.si_pid != 0;
    if (errno != EINTR) throw detail::os_error(fmt::format("waitid({})", pid));
  }
}

}  // namespace

ChildProcess ChildProcess::spawn(const SpawnOptions& options, ChannelOptions channel_options) {
  if (options.work_dir.empty()) throw Error("cannot start worker: no work_dir given");
  std::error_code ec;
  std::filesystem::create_directories(options.work_dir, ec);
  if (ec)
    throw Error(
        fmt::format("cannot create worker directory '{}': {}", options.work_dir.string(), ec.message()));
  auto work_dir = std::filesystem::absolute(options.work_dir);

  detail::ExecPlan plan = detail::make_exec_plan(options);
  if (plan.path.find('/') != std::string::npos) plan.path = std::filesystem::absolute(plan.path).string();

  SocketPair sockets = make_socket_pair();
  UniqueFd child_socket = detail::above_fd_ten(std::move(sockets.child));
  UniqueFd null_in = detail::above_fd_ten(open_checked("/dev/null", O_RDONLY));
  UniqueFd out_log = open_log(work_dir / "stdout.log");
  UniqueFd err_log = open_log(work_dir / "stderr.log");
  Pipe report = make_pipe();
  UniqueFd report_write = detail::above_fd_ten(std::move(report.write));
  plan.stdin_fd = null_in.get();
  plan.stdout_fd = out_log.get();
  plan.stderr_fd = err_log.get();
  plan.channel_fd = child_socket.get();
  plan.error_pipe_fd = report_write.get();

  pid_t pid = ::fork();
  if (pid < 0) throw detail::os_error("fork");
  if (pid == 0) detail::run_child(plan);

  // Only the child may hold these now; keeping the pipe's write end open here
  // would make the read below wait forever.
  report_write.reset();
  child_socket.reset();
  ChildProcess child(pid, Channel(std::move(sockets.parent), std::move(channel_options)), work_dir);

  detail::ChildFailure failure{};
  std::size_t got = read_exec_report(report.read.get(), failure);
  if (got == 0) return child;
  child.wait();
  std::string why = got == sizeof failure ? detail::errno_text(failure.error) : "setup failed";
  if (got == sizeof failure && failure.step != detail::ChildStep::execve)
    why = detail::describe_step(failure) + ": " + why;
  throw Error(fmt::format("cannot start worker '{}': {}", options.argv.front(), why));
}

ChildProcess::ChildProcess(pid_t pid, Channel channel, std::filesystem::path work_dir)
    : pid_(pid), channel_(std::make_unique<Channel>(std::move(channel))), work_dir_(std::move(work_dir)) {}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      channel_(std::move(other.channel_)),
      work_dir_(std::move(other.work_dir_)),
      status_(std::move(other.status_)) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = std::exchange(other.pid_, -1);
    channel_ = std::move(other.channel_);
    work_dir_ = std::move(other.work_dir_);
    status_ = std::move(other.status_);
  }
  return *this;
}

ChildProcess::~ChildProcess() { release(); }

void ChildProcess::release() noexcept {
  if (pid_ < 0 || status_) return;
  // kill(2) and waitpid(2) on our own unreaped child fail only on programming
  // errors (EINVAL, ECHILD); a destructor has no one to report them to.
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

ExitStatus ChildProcess::reap_exited() {
  kill_group(pid_);
  status_ = ExitStatus::from_wait_status(waitpid_checked(pid_, 0));
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
    auto now = Clock::now();
    if (now >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::min<Clock::duration>(step, deadline - now));
    step = std::min(step * 2, std::chrono::milliseconds(20));
  }
}

std::string ChildProcess::stderr_tail(std::size_t max_bytes) const {
  auto path = stderr_path();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return {};
    throw detail::os_error("open(" + path.string() + ")");
  }
  UniqueFd file(fd);
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) throw detail::os_error("fstat(" + path.string() + ")");
  auto size = static_cast<std::size_t>(info.st_size);
  std::size_t start = size > max_bytes ? size - max_bytes : 0;
  std::string out(size - start, '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::pread(file.get(), out.data() + got, out.size() - got, static_cast<off_t>(start + got));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw detail::os_error("pread(" + path.string() + ")");
    }
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

}  // namespace kh
