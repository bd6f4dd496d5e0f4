// The one interface every agent implements: the built-in tuner, replay, a coding-agent
// CLI, or a chat API. The controller (control/) owns the loop, the budget and every
// decision; an agent only proposes. It never evaluates, and what it returns is
// untrusted: the controller validates, builds and checks each candidate itself.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "error/error.h"
#include "trace/definition.h"
#include "trace/solution.h"

namespace kh::agents {

// The round's bounded hypothesis, chosen by the controller from the diagnosis rules.
struct Hypothesis {
  std::string regime;     // the shape regime it targets ("all" when none)
  std::string direction;  // e.g. "vectorise and coalesce loads"
  std::string family;     // technique family, e.g. "tiling", "vectorisation", "knobs"
  std::string rationale;  // the evidence it rests on, in a sentence
  std::string directive;  // a person's steering note for this round, if any (kharness steer)
};

// What the controller gives an agent for one generation request.
struct ProposalContext {
  Definition definition;
  Solution parent;                // the retained best the agent starts from
  std::vector<Solution> history;  // earlier candidates of this loop, newest last (for memory)
  Hypothesis hypothesis;
  std::string stage;               // "explore" or "exploit"
  std::size_t max_candidates = 1;  // the agent may return fewer, never more
  std::chrono::seconds timeout{600};
  std::filesystem::path
      workspace;  // prepared by the controller (docs/agents.md); may be empty for tuner/replay
  nlohmann::ordered_json evidence = nlohmann::ordered_json::object();  // diagnosis report (JSON)
  std::string evidence_markdown;  // the same report as profile.md, when the controller has it
  bool with_skills = true;        // false: no skills reach the agent (an ablation arm without them)
  std::uint64_t seed = 0;         // for agents that choose at random: same seed, same proposal
};

// One candidate as the agent proposed it, with how it was made.
struct Candidate {
  Solution solution;
  std::string family;      // technique family the agent claims
  std::string hypothesis;  // one line: what it should improve and why
};

// An answer the controller could not use (malformed output, bad path, no entry point);
// archived with its reason and counted against the budget.
struct RejectedAnswer {
  std::string reason;
  std::string excerpt;  // the start of the offending output, for the archive
};

struct Proposal {
  std::vector<Candidate> candidates;
  std::vector<RejectedAnswer> rejected;
  std::string transcript;  // prompt and response text, keys never included
  std::optional<std::int64_t> input_tokens;
  std::optional<std::int64_t> output_tokens;
  double seconds = 0;     // wall time the agent took
  std::string cost_note;  // e.g. "2 API calls, 1 retry after 429"
};

// Thrown by propose() when the agent's service stayed unavailable through all its
// retries (a 429 or 5xx storm, timeouts): the round records a failed proposal, which
// counts against the candidate budget, and the loop goes on. Any other kh::Error (a
// refused key, a 4xx, a missing command) is the agent's own failure and stops the loop.
class AgentUnavailable : public Error {
 public:
  using Error::Error;
};

class Agent {
 public:
  virtual ~Agent() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // Throws kh::Error only for failures of the agent itself (command not found, HTTP 4xx);
  // bad answers are returned in Proposal::rejected.
  [[nodiscard]] virtual Proposal propose(const ProposalContext& context) = 0;
};

}  // namespace kh::agents
