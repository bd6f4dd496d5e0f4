// WorkerSession: one solution's worker process, called request by request.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "worker/call_outcome.h"
#include "worker/spawn_options.h"
#include "worker/worker_process.h"

namespace kh {

class WorkerSession {
 public:
  using Clock = std::chrono::steady_clock;

  // Spawns the worker; kh::Error if it cannot start.
  explicit WorkerSession(SpawnOptions options, ChannelOptions channel_options = {});
  // Move-only, as the WorkerProcess it owns.
  WorkerSession(const WorkerSession&) = delete;
  WorkerSession& operator=(const WorkerSession&) = delete;
  WorkerSession(WorkerSession&&) noexcept = default;
  WorkerSession& operator=(WorkerSession&&) noexcept = default;
  ~WorkerSession() = default;

  // Sends {kind, fields...} + payload and waits up to `timeout` for the reply.
  // Never throws for anything the worker does; kh::Error only for local failures.
  // After any outcome but `reply` the worker is dead: restart() before the next call.
  [[nodiscard]] CallOutcome call(std::string_view kind, nlohmann::ordered_json fields,
                                 std::vector<std::byte> payload, std::chrono::milliseconds timeout);
  // As above; the session assigns request.request_id.
  [[nodiscard]] CallOutcome call(Message request, std::chrono::milliseconds timeout);

  // Kills the worker (if alive) and starts a fresh one with the same options, e.g.
  // after a sticky CUDA error or a crash. The old stdout/stderr logs are kept as
  // stdout.log.N / stderr.log.N (N = restart count). kh::Error if it cannot start.
  void restart();
  [[nodiscard]] std::size_t restarts() const noexcept { return restarts_; }

  // Sends "shutdown" and gives the worker `grace` to exit; then SIGKILL.
  ExitStatus shutdown(std::chrono::milliseconds grace);

  [[nodiscard]] WorkerProcess& process() noexcept { return process_; }
  // How many bytes of stderr a failed outcome carries.
  void set_stderr_tail_bytes(std::size_t bytes) noexcept { stderr_tail_bytes_ = bytes; }

 private:
  CallOutcome await(std::uint64_t request_id, Clock::time_point deadline, std::chrono::milliseconds timeout,
                    std::vector<Message>& notes);
  CallOutcome after_channel_error(const std::string& what, Clock::time_point deadline,
                                  std::vector<Message>& notes);
  CallOutcome timed_out(std::chrono::milliseconds timeout, std::vector<Message>& notes);
  CallOutcome failed(CallOutcome::Kind kind, std::string reason, ExitStatus status,
                     std::vector<Message>& notes);
  void keep_old_logs();

  SpawnOptions options_;
  ChannelOptions channel_options_;
  WorkerProcess process_;
  std::uint64_t next_request_id_ = 1;
  std::size_t restarts_ = 0;
  std::size_t stderr_tail_bytes_ = 4096;
};

}  // namespace kh
