#include "report/round_rows.h"

#include <fmt/format.h>

#include <vector>

#include "report/json_fields.h"
#include "report/promoted_speedup.h"

namespace kh::report {
namespace {

using nlohmann::ordered_json;

// The evaluated candidate whose content id the round record names; an empty object when none.
const ordered_json& round_candidate(const ordered_json& evidence, const std::string& content_id) {
  static const ordered_json none = ordered_json::object();
  if (content_id.empty()) return none;
  for (const ordered_json& c : array_at(evidence, "candidates")) {
    if (c.is_object() && text_at(c, "content_id") == content_id) return c;
  }
  return none;
}

}  // namespace

RoundRow round_row(const DecisionEntry& d) {
  RoundRow row;
  row.loop_id = d.loop_id;
  row.round = d.round;
  row.decision = d.kind;
  const ordered_json evidence = ordered_json::parse(d.evidence_json, nullptr, false);
  const ordered_json& record = object_at(evidence, "round_record");
  const std::string content_id = text_at(record, "candidate");
  const ordered_json& candidate = round_candidate(evidence, content_id);
  row.candidate = candidate.empty() ? content_id.substr(0, 12) : text_at(candidate, "name");
  // The family the candidate claimed (kept with it since the loop's first version), else the
  // one the controller asked for.
  row.family = text_at(candidate, "family");
  if (row.family.empty()) row.family = text_at(object_at(record, "hypothesis"), "family");
  row.speedup = number_at(record, "speedup");
  row.objective = text_at(record, "objective");
  if (row.objective.empty()) row.objective = "geomean";
  row.candidates = candidate_statuses(evidence);
  row.reason = text_at(evidence, "reason");
  row.seconds = decision_budget(evidence).seconds;
  return row;
}

std::string round_speedup_text(const RoundRow& row) {
  if (!row.speedup) return "–";
  return format_speedup(*row.speedup, row.objective);
}

std::string candidates_text(const CandidateStatuses& s) {
  std::vector<std::string> parts;
  const std::pair<std::int64_t, const char*> kinds[] = {
      {s.passed, "passed"},           {s.incorrect, "incorrect"},
      {s.reward_hack, "reward hack"}, {s.compile_error, "compile error"},
      {s.crashed, "crashed"},         {s.refused, "refused"}};
  for (const auto& [n, what] : kinds) {
    if (n > 0) parts.push_back(fmt::format("{} {}", n, what));
  }
  if (parts.empty()) return "0";
  return fmt::format("{} ({})", s.total(), fmt::join(parts, ", "));
}

}  // namespace kh::report
