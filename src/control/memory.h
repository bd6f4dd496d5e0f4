// Memory: what was tried on a definition, per regime, and how it ended, so the loop does
// not repeat itself. It lives in the archive (archive/hypothesis_outcomes.h, table
// hypothesis_outcomes), so it survives restarts and is shared by every loop of the same
// definition. `recall` loads it once per round into a Knowledge value, which hypothesis
// choice and the prompts read.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agents/agent.h"
#include "archive/archive.h"
#include "control/round_record.h"

namespace kh::control {

// promoted: became the retained best. archived: passed, kept in the archive, not better.
// rejected: the decision was reject-and-restore. failed: did not build, check or time.
enum class Outcome { promoted, archived, rejected, failed };

[[nodiscard]] std::string_view outcome_name(Outcome o) noexcept;
[[nodiscard]] std::optional<Outcome> parse_outcome(std::string_view name) noexcept;
// From the round's decision and whether its candidate passed.
[[nodiscard]] Outcome outcome_of(const RoundRecord& round) noexcept;

struct MemoryEntry {
  std::string definition;
  agents::Hypothesis hypothesis;  // as the controller asked
  Outcome outcome = Outcome::archived;
  std::string reason;
  std::optional<double> speedup_delta;  // speedup over the retained best minus 1 (+0.1: 10% faster)
  std::string loop_id;
  std::int64_t round = 0;
  std::string content_hash;
  std::string recorded_at;
  std::string candidate_family;  // the family the candidate claimed; empty: none
};

[[nodiscard]] MemoryEntry memory_entry(std::string_view definition, const RoundRecord& round);
// The technique an entry's outcome speaks for: the candidate's family, else the direction's.
[[nodiscard]] const std::string& technique_family(const MemoryEntry& e) noexcept;

// One technique family's record in one regime.
struct FamilyTally {
  std::string family;
  std::size_t tries = 0;
  std::size_t promoted = 0;
  std::size_t failed = 0;  // failed or rejected
  std::optional<double> best_delta;
};

// The memory of one definition, loaded: a value, cheap to query.
class Knowledge {
 public:
  Knowledge() = default;
  explicit Knowledge(std::vector<MemoryEntry> entries);

  [[nodiscard]] const std::vector<MemoryEntry>& entries() const noexcept { return entries_; }
  [[nodiscard]] std::vector<MemoryEntry> for_regime(std::string_view regime) const;
  // The same regime, family and direction ended failed or rejected.
  [[nodiscard]] bool failed(const agents::Hypothesis& h) const;
  // The same regime, family and direction was tried, whatever the outcome.
  [[nodiscard]] bool tried(const agents::Hypothesis& h) const;
  // Per family in `regime`, families by first try.
  [[nodiscard]] std::vector<FamilyTally> tally(std::string_view regime) const;
  // For prompts and ProposalContext::evidence: per regime, what worked and what failed.
  [[nodiscard]] nlohmann::ordered_json json() const;

 private:
  std::vector<MemoryEntry> entries_;
};

// Records one entry (idempotent per loop, round and content hash).
void remember(archive::Archive& archive, const MemoryEntry& entry);
void remember(archive::Archive& archive, std::string_view definition, const RoundRecord& round);
// Everything remembered about `definition`, oldest first.
[[nodiscard]] Knowledge recall(archive::Archive& archive, std::string_view definition);

}  // namespace kh::control
