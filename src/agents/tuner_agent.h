// The built-in tuner: needs no LLM. It reads the knobs the parent declares (knobs.h)
// and proposes bounded variants of them.
//
// explore: points of the knob grid (defaults first, the grid's fixed order), minus the
//   parent's own setting and every setting tried before, taken round-robin over
//   technique families so that a few candidates cover several families. For the tuner
//   a family is the set of knobs a variant moves away from the parent's setting
//   ("knobs:BLOCK", "knobs:BLOCK+VEC").
// exploit: the untried neighbours of the parent (one knob one step away), where the
//   controller passes the best candidate so far as the parent.
// The same parent, history, stage and seed give the same proposal, so a resumed loop
// re-proposes exactly what it proposed before the kill.
#pragma once

#include <string>

#include "agents/agent.h"

namespace kh::agents {

class TunerAgent final : public Agent {
 public:
  [[nodiscard]] std::string name() const override { return "tuner"; }
  [[nodiscard]] Proposal propose(const ProposalContext& context) override;
};

}  // namespace kh::agents
