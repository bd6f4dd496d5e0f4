// WorkerProcess: one worker process in its own process group (and jail), and its channel.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "base/child_process.h"
#include "base/exit_status.h"
#include "worker/channel.h"
#include "worker/spawn_options.h"

namespace kh {

class WorkerProcess {
 public:
  using Clock = std::chrono::steady_clock;

  // Spawns the worker with the isolation of SpawnOptions (docs/worker.md lists it): its
  // channel on descriptor 3, stdout and stderr into work_dir's logs. Returns once the
  // worker's program is running. kh::Error when it cannot start, e.g.
  // "cannot start worker './w': No such file or directory".
  //
  // The worker gets SIGKILL when the *thread* that spawned it exits (that is how
  // PR_SET_PDEATHSIG works), so spawn from a thread that outlives the worker.
  [[nodiscard]] static WorkerProcess spawn(const SpawnOptions& options, ChannelOptions channel_options = {});

  // Kills the process group and reaps the worker (the destructor of its ChildProcess).
  ~WorkerProcess() = default;
  // Move-only, as the ChildProcess it owns.
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  WorkerProcess(WorkerProcess&& other) noexcept = default;
  WorkerProcess& operator=(WorkerProcess&& other) noexcept;

  [[nodiscard]] Channel& channel() { return *channel_; }
  [[nodiscard]] pid_t pid() const noexcept { return process_.pid(); }
  // The process running the worker's program: pid(), or in a PID namespace its init's child.
  [[nodiscard]] pid_t program_pid() const noexcept { return process_.program_pid(); }
  [[nodiscard]] const Isolation& isolation() const noexcept { return process_.isolation(); }
  [[nodiscard]] const std::filesystem::path& work_dir() const noexcept { return work_dir_; }
  [[nodiscard]] std::filesystem::path stdout_path() const { return work_dir_ / "stdout.log"; }
  [[nodiscard]] std::filesystem::path stderr_path() const { return work_dir_ / "stderr.log"; }

  // SIGKILL to the whole process group, then reap; see ChildProcess.
  ExitStatus kill() { return process_.kill(); }
  [[nodiscard]] std::optional<ExitStatus> try_wait() { return process_.try_wait(); }
  ExitStatus wait() { return process_.wait(); }
  [[nodiscard]] std::optional<ExitStatus> wait_until(Clock::time_point deadline) {
    return process_.wait_until(deadline);
  }
  [[nodiscard]] const std::optional<ExitStatus>& exit_status() const noexcept {
    return process_.exit_status();
  }

  // The last `max_bytes` of stderr.log, for error messages; empty if there is none.
  [[nodiscard]] std::string stderr_tail(std::size_t max_bytes) const;

 private:
  WorkerProcess(ChildProcess process, Channel channel, std::filesystem::path work_dir);

  // Declared first, destroyed last: the channel closes before the process is killed.
  ChildProcess process_;
  std::unique_ptr<Channel> channel_;
  std::filesystem::path work_dir_;
};

}  // namespace kh
