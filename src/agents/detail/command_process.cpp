#include "agents/detail/command_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>

#include "error/error.h"
#include "worker/unique_fd.h"

namespace kh::agents::detail {

namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(fmt::format("pipe2: {}", std::strerror(errno)));
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(const char* command, const char* cwd, int out_fd, int err_fd) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int null_in = ::open("/dev/null", O_RDONLY);
  if (null_in < 0 || ::dup2(null_in, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) ::_exit(126);
  if (::chdir(cwd) != 0) ::_exit(126);
  ::execl("/bin/sh", "sh", "-c", command, static_cast<char*>(nullptr));
  ::_exit(127);
}

// Reads what is available; false at end of file.
bool drain(int fd, BoundedCapture& into) {
  std::array<char, 8192> buf{};
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n > 0) {
      into.append(std::string_view(buf.data(), static_cast<std::size_t>(n)));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

// True once the process has ended, leaving it an unreaped zombie, so its pid (and so its
// process group id) cannot be reused before the group is killed.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0;
}

int kill_group_and_reap(pid_t pid) {
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

void BoundedCapture::append(std::string_view data) {
  const std::size_t to_head = std::min(data.size(), half_ - std::min(half_, head_.size()));
  head_.append(data.substr(0, to_head));
  tail_.append(data.substr(to_head));
  if (tail_.size() > 2 * half_ + 4096) {
    const std::size_t cut = tail_.size() - half_;
    dropped_ += cut;
    tail_.erase(0, cut);
  }
}

std::string BoundedCapture::text() const {
  std::string tail = tail_;
  std::size_t dropped = dropped_;
  if (tail.size() > half_) {
    dropped += tail.size() - half_;
    tail.erase(0, tail.size() - half_);
  }
  if (dropped == 0) return head_ + tail;
  return head_ + fmt::format("\n[... {} bytes left out ...]\n", dropped) + tail;
}

CommandRun run_command(const std::string& command, const std::filesystem::path& cwd,
                       std::chrono::milliseconds timeout, std::size_t capture_bytes) {
  Pipe out = make_pipe();
  Pipe err = make_pipe();
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) exec_child(command.c_str(), cwd.c_str(), out.write.get(), err.write.get());
  ::setpgid(pid, pid);  // also here, so the group exists before any kill below
  out.write.reset();
  err.write.reset();
  ::fcntl(out.read.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(err.read.get(), F_SETFL, O_NONBLOCK);

  BoundedCapture out_cap(capture_bytes);
  BoundedCapture err_cap(capture_bytes);
  CommandRun run;
  std::optional<int> wait_status;
  bool out_open = true;
  bool err_open = true;
  const auto deadline = start + timeout;
  // A grandchild that left the group (setsid) could hold the pipes open forever.
  constexpr auto kPipeGrace = std::chrono::seconds(2);
  auto pipes_deadline = Clock::time_point::max();
  while (!wait_status || ((out_open || err_open) && Clock::now() < pipes_deadline)) {
    if (!wait_status) {
      // After the shell exits, what it left behind in its group is killed with it.
      const bool exited = has_exited(pid);
      if (!exited && Clock::now() >= deadline) run.timed_out = true;
      if (exited || run.timed_out) {
        wait_status = kill_group_and_reap(pid);
        pipes_deadline = Clock::now() + kPipeGrace;
      }
    }
    std::array<pollfd, 2> fds = {pollfd{out_open ? out.read.get() : -1, POLLIN, 0},
                                 pollfd{err_open ? err.read.get() : -1, POLLIN, 0}};
    ::poll(fds.data(), fds.size(), 20);
    if (out_open) out_open = drain(out.read.get(), out_cap);
    if (err_open) err_open = drain(err.read.get(), err_cap);
  }
  run.status = ExitStatus::from_wait_status(*wait_status);
  run.out = out_cap.text();
  run.err = err_cap.text();
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

}  // namespace kh::agents::detail
