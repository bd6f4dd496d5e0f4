#include "base/process_runner.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "base/child_process.h"
#include "base/fd_pipe.h"
#include "base/os_error.h"
#include "base/output_capture.h"
#include "base/unique_fd.h"
#include "error/error.h"

namespace kh {

namespace {

using Clock = std::chrono::steady_clock;

// Reads what is available; false at end of file.
bool drain(int fd, OutputCapture& into, const std::function<void(std::string_view)>& on_output) {
  std::array<char, 65536> buf{};
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n > 0) {
      const std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
      into.append(chunk);
      if (on_output) on_output(chunk);
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

// A child that cannot be executed, reported as a shell would.
ProcessRun not_executed(const ProcessSpec& spec, const Error& e, Clock::time_point start) {
  ProcessRun run;
  run.status = ExitStatus::exited(127);
  run.out = fmt::format("kharness: cannot execute '{}': {}\n", spec.argv.empty() ? "" : spec.argv.front(),
                        e.what());
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

}  // namespace

ProcessRun run_process(ProcessSpec spec, const RunOptions& options) {
  if (spec.argv.empty()) throw Error("run_process: empty command");
  const auto start = Clock::now();
  FdPipe out = make_fd_pipe(/*nonblocking_read=*/true);
  FdPipe err = options.merge_output ? FdPipe{} : make_fd_pipe(/*nonblocking_read=*/true);
  spec.stdin_fd = -1;
  spec.stdout_fd = out.write.get();
  spec.stderr_fd = options.merge_output ? out.write.get() : err.write.get();
  std::optional<ChildProcess> child;
  try {
    child.emplace(ChildProcess::spawn(spec));
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.rfind("cannot start", 0) != 0 || what.find("--sandbox strict") != std::string::npos) throw;
    return not_executed(spec, e, start);
  }
  out.write.reset();
  err.write.reset();

  OutputCapture out_cap(options.capture_bytes, options.keep_tail);
  OutputCapture err_cap(options.capture_bytes, options.keep_tail);
  ProcessRun run;
  run.isolation = child->isolation();
  std::optional<ExitStatus> status;
  bool out_open = true;
  bool err_open = !options.merge_output;
  const auto deadline = start + options.timeout;
  // A grandchild that left the group (setsid) could hold the pipes open forever.
  constexpr auto kPipeGrace = std::chrono::seconds(2);
  auto pipes_deadline = Clock::time_point::max();
  while (!status || ((out_open || err_open) && Clock::now() < pipes_deadline)) {
    if (!status) {
      status = child->try_wait();  // an exit takes the rest of its group with it
      if (!status && Clock::now() >= deadline) {
        run.timed_out = true;
        status = child->kill();
      }
      if (status) pipes_deadline = Clock::now() + kPipeGrace;
    }
    std::array<pollfd, 2> fds = {pollfd{out_open ? out.read.get() : -1, POLLIN, 0},
                                 pollfd{err_open ? err.read.get() : -1, POLLIN, 0}};
    ::poll(fds.data(), fds.size(), 20);
    if (out_open) out_open = drain(out.read.get(), out_cap, options.on_output);
    if (err_open) err_open = drain(err.read.get(), err_cap, options.on_output);
  }
  run.status = *status;
  run.out = out_cap.text();
  run.err = err_cap.text();
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

}  // namespace kh
