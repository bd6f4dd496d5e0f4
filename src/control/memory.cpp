#include "control/memory.h"

#include <algorithm>
#include <array>

#include "archive/hypothesis_outcomes.h"

namespace kh::control {
namespace {

using json = nlohmann::ordered_json;

constexpr std::array<std::string_view, 4> kOutcomes = {"promoted", "archived", "rejected", "failed"};

bool same_idea(const MemoryEntry& e, const agents::Hypothesis& h) {
  return e.hypothesis.regime == h.regime && e.hypothesis.family == h.family &&
         e.hypothesis.direction == h.direction;
}

bool went_wrong(Outcome o) { return o == Outcome::failed || o == Outcome::rejected; }

MemoryEntry from_row(archive::HypothesisOutcome r) {
  MemoryEntry e;
  e.definition = std::move(r.definition);
  e.hypothesis = {std::move(r.regime), std::move(r.direction), std::move(r.family), std::move(r.rationale),
                  std::move(r.directive)};
  e.candidate_family = std::move(r.candidate_family);
  e.outcome = parse_outcome(r.outcome).value_or(Outcome::failed);
  e.reason = std::move(r.reason);
  e.speedup_delta = r.speedup_delta;
  e.loop_id = std::move(r.loop_id);
  e.round = r.round;
  e.content_hash = std::move(r.content_hash);
  e.recorded_at = std::move(r.recorded_at);
  return e;
}

json entry_json(const MemoryEntry& e) {
  return {{"family", technique_family(e)},
          {"direction", e.hypothesis.direction},
          {"outcome", outcome_name(e.outcome)},
          {"reason", e.reason},
          {"speedup_delta", e.speedup_delta ? json(*e.speedup_delta) : json(nullptr)},
          {"loop_id", e.loop_id},
          {"round", e.round}};
}

}  // namespace

std::string_view outcome_name(Outcome o) noexcept { return kOutcomes[static_cast<std::size_t>(o)]; }

std::optional<Outcome> parse_outcome(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kOutcomes.size(); ++i)
    if (kOutcomes[i] == name) return static_cast<Outcome>(i);
  return std::nullopt;
}

Outcome outcome_of(const RoundRecord& round) noexcept {
  if (!round.passed) return Outcome::failed;
  switch (round.decision) {
    case archive::DecisionKind::promote:
      return Outcome::promoted;
    case archive::DecisionKind::reject_restore:
      return Outcome::rejected;
    case archive::DecisionKind::archive_only:
      break;
  }
  return Outcome::archived;
}

MemoryEntry memory_entry(std::string_view definition, const RoundRecord& round) {
  MemoryEntry e;
  e.definition = std::string(definition);
  e.hypothesis = round.hypothesis;
  e.candidate_family = round.candidate_family;
  e.outcome = outcome_of(round);
  e.reason = round.failure;
  if (e.reason.empty()) e.reason = std::string(archive::decision_kind_name(round.decision));
  if (const auto s = round.speedup()) e.speedup_delta = *s - 1;
  e.loop_id = round.loop_id;
  e.round = round.round;
  e.content_hash = round.content_hash;
  return e;
}

const std::string& technique_family(const MemoryEntry& e) noexcept {
  return e.candidate_family.empty() ? e.hypothesis.family : e.candidate_family;
}

Knowledge::Knowledge(std::vector<MemoryEntry> entries) : entries_(std::move(entries)) {}

std::vector<MemoryEntry> Knowledge::for_regime(std::string_view regime) const {
  std::vector<MemoryEntry> out;
  std::copy_if(entries_.begin(), entries_.end(), std::back_inserter(out),
               [&](const MemoryEntry& e) { return e.hypothesis.regime == regime; });
  return out;
}

bool Knowledge::failed(const agents::Hypothesis& h) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const MemoryEntry& e) { return same_idea(e, h) && went_wrong(e.outcome); });
}

bool Knowledge::tried(const agents::Hypothesis& h) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const MemoryEntry& e) { return same_idea(e, h); });
}

std::vector<FamilyTally> Knowledge::tally(std::string_view regime) const {
  std::vector<FamilyTally> out;
  for (const MemoryEntry& e : entries_) {
    if (e.hypothesis.regime != regime) continue;
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const FamilyTally& t) { return t.family == technique_family(e); });
    if (it == out.end()) it = out.insert(out.end(), FamilyTally{technique_family(e), 0, 0, 0, std::nullopt});
    ++it->tries;
    if (e.outcome == Outcome::promoted) ++it->promoted;
    if (went_wrong(e.outcome)) ++it->failed;
    if (e.speedup_delta && (!it->best_delta || *e.speedup_delta > *it->best_delta))
      it->best_delta = e.speedup_delta;
  }
  return out;
}

nlohmann::ordered_json Knowledge::json() const {
  nlohmann::ordered_json regimes = nlohmann::ordered_json::object();
  for (const MemoryEntry& e : entries_) {
    nlohmann::ordered_json& r = regimes[e.hypothesis.regime];
    if (r.is_null())
      r = {{"worked", nlohmann::ordered_json::array()},
           {"failed", nlohmann::ordered_json::array()},
           {"no_gain", nlohmann::ordered_json::array()}};
    const char* bucket = e.outcome == Outcome::promoted ? "worked"
                         : went_wrong(e.outcome)        ? "failed"
                                                        : "no_gain";
    r[bucket].push_back(entry_json(e));
  }
  return regimes;
}

void remember(archive::Archive& archive, const MemoryEntry& e) {
  archive::HypothesisOutcome row{e.definition,
                                 e.hypothesis.regime,
                                 e.hypothesis.family,
                                 e.hypothesis.direction,
                                 e.hypothesis.rationale,
                                 e.hypothesis.directive,
                                 std::string(outcome_name(e.outcome)),
                                 e.reason,
                                 e.speedup_delta,
                                 e.loop_id,
                                 e.round,
                                 e.content_hash,
                                 e.recorded_at,
                                 e.candidate_family};
  archive::record_hypothesis_outcome(archive, row);
}

void remember(archive::Archive& archive, std::string_view definition, const RoundRecord& round) {
  remember(archive, memory_entry(definition, round));
}

Knowledge recall(archive::Archive& archive, std::string_view definition) {
  std::vector<MemoryEntry> entries;
  for (archive::HypothesisOutcome& row : archive::load_hypothesis_outcomes(archive, definition))
    entries.push_back(from_row(std::move(row)));
  return Knowledge(std::move(entries));
}

}  // namespace kh::control
