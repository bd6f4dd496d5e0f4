// CallOutcome: what became of one request to a worker.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/exit_status.h"
#include "worker/message.h"

namespace kh {

// Candidate misbehaviour is an outcome, never an exception: the caller maps
// timeout to TIMEOUT and crashed / protocol_violation to RUNTIME_ERROR.
struct CallOutcome {
  enum class Kind {
    reply,               // a frame answering the request (its kind may be "error")
    timeout,             // no reply by the deadline; the worker was SIGKILLed
    crashed,             // the worker ended (any exit, even code 0) before replying
    protocol_violation,  // a frame that breaks the protocol; the worker was SIGKILLed
  };

  Kind kind = Kind::reply;
  std::optional<Message> reply;           // when kind == reply
  std::vector<Message> notes;             // "log"/"progress" frames received for the request
  std::optional<ExitStatus> exit_status;  // how the worker ended, unless kind == reply
  std::string reason;                     // what went wrong, unless kind == reply
  std::string stderr_tail;                // the end of the worker's stderr, unless kind == reply

  [[nodiscard]] bool ok() const noexcept { return kind == Kind::reply; }
  // One line: "timed out after 500 ms", "crashed: killed by signal 11 (Segmentation
  // fault)", "protocol violation: reply for request 7 does not match request 6".
  [[nodiscard]] std::string describe() const;
};

[[nodiscard]] std::string_view to_string(CallOutcome::Kind kind);

}  // namespace kh
