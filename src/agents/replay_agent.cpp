#include "agents/replay_agent.h"

#include <fmt/format.h>

#include <algorithm>

#include "trace/json_io.h"

namespace kh::agents {

namespace {

bool same_code(const Solution& a, const Solution& b) { return to_json(a) == to_json(b); }

}  // namespace

Proposal ReplayAgent::propose(const ProposalContext& context) {
  Proposal p;
  std::size_t skipped = 0;
  for (const ReplayItem& item : items_) {
    if (p.candidates.size() >= context.max_candidates) break;
    const auto seen = [&](const Solution& h) { return same_code(h, item.solution); };
    if (std::any_of(context.history.begin(), context.history.end(), seen) ||
        same_code(context.parent, item.solution)) {
      ++skipped;
      continue;
    }
    if (item.solution.definition != context.definition.name) {
      p.rejected.push_back(RejectedAnswer{fmt::format("{} is a solution of '{}', not of '{}'", item.origin,
                                                      item.solution.definition, context.definition.name),
                                          item.solution.name});
      continue;
    }
    p.candidates.push_back(Candidate{item.solution, item.family, fmt::format("replay of {}", item.origin)});
  }
  p.transcript = fmt::format("replay: {} item(s), {} already proposed, {} proposed now", items_.size(),
                             skipped, p.candidates.size());
  p.cost_note = "no model calls";
  return p;
}

}  // namespace kh::agents
