#include "build/detail/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "build/detail/child_groups.h"
#include "error/error.h"

namespace kh::detail {

namespace {
using Clock = std::chrono::steady_clock;

// Owns one file descriptor.
class Fd {
 public:
  explicit Fd(int fd = -1) noexcept : fd_(fd) {}
  Fd(const Fd&) = delete;  // one owner closes it exactly once
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  [[nodiscard]] int get() const noexcept { return fd_; }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

[[noreturn]] void fail(const std::string& what) { throw Error(what + ": " + std::strerror(errno)); }

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(const std::vector<char*>& argv, const char* cwd, int out_fd,
                             const sigset_t& mask) {
  ::setpgid(0, 0);
  ::pthread_sigmask(SIG_SETMASK, &mask, nullptr);  // a blocked mask would outlive exec
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(out_fd, STDERR_FILENO);
  if (::chdir(cwd) != 0) ::_exit(126);
  ::execv(argv[0], argv.data());
  static constexpr char kMsg[] = "kharness: cannot execute the compiler\n";
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
  ::_exit(127);
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

void append_capped(std::string& out, const char* data, std::size_t n) {
  if (out.size() >= kMaxOutput) return;
  out.append(data, std::min(n, kMaxOutput - out.size()));
  if (out.size() == kMaxOutput) out += "\n[kharness: output truncated]\n";
}

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<std::int64_t>(0, std::min<std::int64_t>(left.count(), 1000)));
}

// Reads the pipe until EOF or the deadline. Returns false on deadline.
bool drain(int fd, Clock::time_point deadline, std::string& out,
           const std::function<void(std::string_view)>& on_output) {
  char buf[65536];
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) fail("poll");
    if (ready == 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // EOF (or an error, which ends the stream the same way)
    append_capped(out, buf, static_cast<std::size_t>(n));
    if (on_output) on_output(std::string_view(buf, static_cast<std::size_t>(n)));
  }
  return false;
}

// Waits for the child until the deadline; a child can close its output and keep running.
bool reap(pid_t pid, Clock::time_point deadline, int& status) {
  while (true) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) fail("waitpid");
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}
}  // namespace

ProcessOutcome run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                           std::chrono::milliseconds timeout,
                           const std::function<void(std::string_view)>& on_output) {
  if (argv.empty()) throw Error("run_process: empty command");
  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  const std::string cwd_str = cwd.string();

  int fds[2];
  // O_CLOEXEC: a compiler started concurrently by another thread must not inherit
  // our write end, or our reader would wait for that other compiler to finish.
  if (::pipe2(fds, O_CLOEXEC) != 0) fail("pipe2");
  Fd read_end(fds[0]);
  Fd write_end(fds[1]);

  const auto start = Clock::now();
  const auto deadline = start + timeout;
  // No termination signal between fork and tracking: the child would escape it.
  sigset_t terminating;
  sigset_t before;
  sigemptyset(&terminating);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&terminating, sig);
  ::pthread_sigmask(SIG_BLOCK, &terminating, &before);
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(cargv, cwd_str.c_str(), write_end.get(), before);
  if (pid > 0) {
    ::setpgid(pid, pid);  // also in the parent, so the group exists before any kill
    track_child_group(pid);
  }
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) fail("fork");
  const struct Untrack {
    pid_t pid;
    ~Untrack() { untrack_child_group(pid); }
  } untrack{pid};
  write_end.reset();

  ProcessOutcome outcome;
  int status = 0;
  const bool finished =
      drain(read_end.get(), deadline, outcome.output, on_output) && reap(pid, deadline, status);
  if (!finished) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    outcome.timed_out = true;
  }
  outcome.exit_code = decode_status(status);
  outcome.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return outcome;
}

}  // namespace kh::detail
