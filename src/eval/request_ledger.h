// RequestLedger: what one measurement worker's requests cost, by kind of request.
//
// The orchestrator's wall time around each request (the channel and both sides' work),
// how many bytes the replies carried, and the worker's own account of its phases. A
// workload's share is the difference of two snapshots; the trace keeps it, so the
// harness's cost outside the timed loops is measured, not guessed.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace kh {

class RequestLedger {
 public:
  // `worker_phases`: the reply's objects of per-phase milliseconds (numbers only are
  // counted; a reply is the worker's word, so anything else is ignored).
  void add(std::string_view kind, double wall_ms, std::size_t reply_bytes,
           const nlohmann::ordered_json& reply_header);

  // {"check": {"count", "wall_ms", "reply_bytes", "worker_ms": {...}}, ...}.
  [[nodiscard]] const nlohmann::ordered_json& totals() const noexcept { return totals_; }

  // What was added after `before` (an earlier totals()): kinds with no new request left out.
  [[nodiscard]] nlohmann::ordered_json since(const nlohmann::ordered_json& before) const;

 private:
  nlohmann::ordered_json totals_ = nlohmann::ordered_json::object();
};

}  // namespace kh
