#include "worker/call_outcome.h"

namespace kh {

std::string_view to_string(CallOutcome::Kind kind) {
  switch (kind) {
    case CallOutcome::Kind::reply:
      return "reply";
    case CallOutcome::Kind::timeout:
      return "timeout";
    case CallOutcome::Kind::crashed:
      return "crashed";
    case CallOutcome::Kind::protocol_violation:
      return "protocol violation";
  }
  return "unknown";
}

std::string CallOutcome::describe() const {
  if (kind == Kind::reply) return reply ? "reply \"" + reply->kind() + "\"" : "reply";
  return std::string(to_string(kind)) + ": " + reason;
}

}  // namespace kh
