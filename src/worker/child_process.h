// ChildProcess: one worker process in its own process group, and its channel.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "worker/channel.h"
#include "worker/exit_status.h"
#include "worker/spawn_options.h"

namespace kh {

class ChildProcess {
 public:
  using Clock = std::chrono::steady_clock;

  // fork + exec with the isolation of SpawnOptions (docs/worker.md lists it). Returns
  // once the worker's program is running. kh::Error when it cannot start, e.g.
  // "cannot start worker './w': No such file or directory".
  //
  // The worker gets SIGKILL when the *thread* that spawned it exits (that is how
  // PR_SET_PDEATHSIG works), so spawn from a thread that outlives the worker.
  [[nodiscard]] static ChildProcess spawn(const SpawnOptions& options, ChannelOptions channel_options = {});

  // Kills the process group and reaps the worker: no zombie, no stray grandchild.
  ~ChildProcess();
  // Move-only: one owner reaps the process and kills its group exactly once.
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;

  [[nodiscard]] Channel& channel() { return *channel_; }
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  [[nodiscard]] const std::filesystem::path& work_dir() const noexcept { return work_dir_; }
  [[nodiscard]] std::filesystem::path stdout_path() const { return work_dir_ / "stdout.log"; }
  [[nodiscard]] std::filesystem::path stderr_path() const { return work_dir_ / "stderr.log"; }

  // SIGKILL to the whole process group (never SIGTERM: a candidate may ignore it),
  // then reap. Returns how the worker ended (possibly before the kill).
  ExitStatus kill();
  // The exit status once the worker has ended, without blocking. Reaping also
  // SIGKILLs what is left of the process group, so a worker that exits on its own
  // cannot leave a forked grandchild running.
  [[nodiscard]] std::optional<ExitStatus> try_wait();
  // Blocks until the worker ends.
  ExitStatus wait();
  // Like wait(), but gives up (nullopt) at `deadline`.
  [[nodiscard]] std::optional<ExitStatus> wait_until(Clock::time_point deadline);
  // How it ended, if it has been reaped.
  [[nodiscard]] const std::optional<ExitStatus>& exit_status() const noexcept { return status_; }

  // The last `max_bytes` of stderr.log, for error messages; empty if there is none.
  [[nodiscard]] std::string stderr_tail(std::size_t max_bytes) const;

 private:
  ChildProcess(pid_t pid, Channel channel, std::filesystem::path work_dir);
  // Kill the group while the leader is an unreaped zombie (its pid cannot be
  // reused yet), then reap.
  ExitStatus reap_exited();
  void release() noexcept;

  pid_t pid_ = -1;
  std::unique_ptr<Channel> channel_;
  std::filesystem::path work_dir_;
  std::optional<ExitStatus> status_;
};

}  // namespace kh
