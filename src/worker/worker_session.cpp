#include "worker/worker_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "error/error.h"
#include "worker/await_reply.h"

namespace kh {
namespace {

// A worker whose channel stays quiet is checked for death this often. A crash
// normally shows as EOF at once; a grandchild holding the channel open hides it.
constexpr auto kLivenessInterval = std::chrono::milliseconds(50);
// How long a worker that closed its channel gets to finish dying before it is
// called a violation (closed the channel but kept running).
constexpr auto kExitGrace = std::chrono::milliseconds(1000);

}  // namespace

WorkerSession::WorkerSession(SpawnOptions options, ChannelOptions channel_options)
    : options_(std::move(options)),
      channel_options_(channel_options),
      process_(WorkerProcess::spawn(options_, std::move(channel_options))) {}

CallOutcome WorkerSession::call(std::string_view kind, nlohmann::ordered_json fields,
                                std::vector<std::byte> payload, std::chrono::milliseconds timeout) {
  return call(Message::make(kind, 0, std::move(fields), std::move(payload)), timeout);
}

CallOutcome WorkerSession::call(Message request, std::chrono::milliseconds timeout) {
  std::vector<Message> notes;
  if (auto status = process_.try_wait())
    return failed(CallOutcome::Kind::crashed, "worker is not running: " + status->describe(), *status, notes);
  const auto deadline = Clock::now() + timeout;
  request.request_id = next_request_id_++;
  try {
    if (!process_.channel().send(request, deadline)) return timed_out(timeout, notes);
  } catch (const Error& e) {
    return after_channel_error(e.what(), deadline, notes);
  }
  return await(request.request_id, deadline, timeout, notes);
}

CallOutcome WorkerSession::await(std::uint64_t request_id, Clock::time_point deadline,
                                 std::chrono::milliseconds timeout, std::vector<Message>& notes) {
  Channel& channel = process_.channel();
  for (;;) {
    auto slice_end = std::min(deadline, Clock::now() + kLivenessInterval);
    try {
      if (auto reply = await_reply(channel, request_id, slice_end, notes)) {
        CallOutcome outcome;
        outcome.reply = std::move(reply);
        outcome.notes = std::move(notes);
        return outcome;
      }
    } catch (const Error& e) {
      return after_channel_error(e.what(), deadline, notes);
    }
    if (Clock::now() >= deadline) return timed_out(timeout, notes);
    if (auto status = process_.try_wait()) {
      // Dead, but a grandchild keeps the channel open. A complete reply may still
      // be buffered; take it if so, otherwise the death is the outcome.
      std::optional<Message> reply;
      try {
        reply = await_reply(channel, request_id, Clock::now(), notes);
      } catch (const Error&) {
        // Died mid-frame: the death, not the torn frame, is what to report.
        return failed(CallOutcome::Kind::crashed, status->describe(), *status, notes);
      }
      if (!reply) return failed(CallOutcome::Kind::crashed, status->describe(), *status, notes);
      CallOutcome outcome;
      outcome.reply = std::move(reply);
      outcome.notes = std::move(notes);
      return outcome;
    }
  }
}

CallOutcome WorkerSession::after_channel_error(const std::string& what, Clock::time_point deadline,
                                               std::vector<Message>& notes) {
  if (!process_.channel().peer_closed()) {
    ExitStatus status = process_.kill();
    return failed(CallOutcome::Kind::protocol_violation, what, status, notes);
  }
  // The worker closed its end; usually because it is dying. A worker that closes
  // the channel and lives on is broken all the same.
  auto grace_end = std::max(std::min(deadline, Clock::now() + kExitGrace), Clock::now() + kLivenessInterval);
  if (auto status = process_.wait_until(grace_end))
    return failed(CallOutcome::Kind::crashed, status->describe(), *status, notes);
  ExitStatus status = process_.kill();
  return failed(CallOutcome::Kind::protocol_violation, what + " but kept running", status, notes);
}

CallOutcome WorkerSession::timed_out(std::chrono::milliseconds timeout, std::vector<Message>& notes) {
  ExitStatus status = process_.kill();
  return failed(CallOutcome::Kind::timeout, fmt::format("no reply within {} ms", timeout.count()), status,
                notes);
}

CallOutcome WorkerSession::failed(CallOutcome::Kind kind, std::string reason, ExitStatus status,
                                  std::vector<Message>& notes) {
  CallOutcome outcome;
  outcome.kind = kind;
  outcome.reason = std::move(reason);
  outcome.exit_status = status;
  outcome.notes = std::move(notes);
  outcome.stderr_tail = process_.stderr_tail(stderr_tail_bytes_);
  return outcome;
}

void WorkerSession::keep_old_logs() {
  for (const auto& path : {process_.stdout_path(), process_.stderr_path()}) {
    auto kept = path;
    kept += "." + std::to_string(restarts_);
    std::error_code ec;
    std::filesystem::rename(path, kept, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
      throw Error(fmt::format("cannot keep worker log '{}': {}", path.string(), ec.message()));
  }
}

void WorkerSession::restart() {
  process_.kill();
  ++restarts_;
  keep_old_logs();
  process_ = WorkerProcess::spawn(options_, channel_options_);
}

ExitStatus WorkerSession::shutdown(std::chrono::milliseconds grace) {
  if (auto status = process_.try_wait()) return *status;
  const auto deadline = Clock::now() + grace;
  try {
    if (process_.channel().send(Message::make("shutdown", next_request_id_++), deadline)) {
      if (auto status = process_.wait_until(deadline)) return *status;
    }
  } catch (const Error&) {
    // A worker that cannot take the request is killed below, like a slow one.
  }
  return process_.kill();
}

}  // namespace kh
