// The replay agent: re-proposes given solutions (files, or archived solutions that the
// controller looked up by content id), for reproduction and for tests. It proposes
// each one once: an item already in the context's history is not proposed again.
#pragma once

#include <string>
#include <vector>

#include "agents/agent.h"

namespace kh::agents {

struct ReplayItem {
  Solution solution;
  std::string family = "replay";  // the technique family it was archived with, when known
  std::string origin;             // where it came from: a file path or "archive:<content id>"
};

class ReplayAgent final : public Agent {
 public:
  explicit ReplayAgent(std::vector<ReplayItem> items) : items_(std::move(items)) {}
  [[nodiscard]] std::string name() const override { return "replay"; }
  [[nodiscard]] Proposal propose(const ProposalContext& context) override;

 private:
  std::vector<ReplayItem> items_;
};

}  // namespace kh::agents
