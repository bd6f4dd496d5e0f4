// What one finished round leaves behind, as trajectory supervision and memory see it.
//
// Latencies are means, in milliseconds, over the workloads the round measured both the
// candidate and the retained best on (paired in the same round), weighed as the loop's
// objective weighs them in its comparisons (geometric by default, so that one slow shape
// does not dominate; arithmetic under --objective mean), so that the ratio of the two is the
// speedup the loop judged by.
// The loop stores each record in its decision's evidence under "round_record"
// (round_record_json), so supervision and memory can be rebuilt from the archive.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agents/agent.h"
#include "archive/controller_log.h"
#include "control/sweep.h"

namespace kh::control {

// Stage 1 explores several families; stage 2 exploits the best 1-3 of them.
enum class Stage { explore, exploit };

[[nodiscard]] std::string_view stage_name(Stage s) noexcept;  // "explore" | "exploit"
[[nodiscard]] std::optional<Stage> parse_stage(std::string_view name) noexcept;

struct RoundRecord {
  std::string loop_id;
  std::int64_t round = 0;
  Stage stage = Stage::explore;
  agents::Hypothesis hypothesis;             // regime, direction, family the controller asked for
  std::string candidate_family;              // the family the round's candidate claimed; empty: none
  std::string content_hash;                  // normalised_content_hash of the candidate; empty: none produced
  std::optional<std::string> candidate;      // archive content id of the candidate, when archived
  std::optional<double> candidate_ms;        // mean latency as `objective`; absent when it did not pass
  std::optional<double> best_ms;             // the retained best's, measured in the same round
  Objective objective = Objective::geomean;  // which mean the two are
  archive::DecisionKind decision = archive::DecisionKind::archive_only;
  bool passed = false;  // built, correct on every workload, no reward hack
  std::string failure;  // why not passed (or why rejected), one line

  // best_ms / candidate_ms: above 1 when the candidate is faster. Absent unless both are.
  [[nodiscard]] std::optional<double> speedup() const;
  // The retained best's latency after this round: the candidate's when promoted.
  [[nodiscard]] std::optional<double> retained_ms() const;
  // The technique the round's outcome speaks for: the candidate's claimed family, else the
  // direction's (an agent told to vary the family within a direction may win with another).
  [[nodiscard]] const std::string& technique_family() const noexcept;
};

[[nodiscard]] nlohmann::ordered_json round_record_json(const RoundRecord& r);
// Throws kh::Error naming the field when `j` is not a round record.
[[nodiscard]] RoundRecord round_record_from_json(const nlohmann::ordered_json& j);

// The records the loop stored in its decisions' evidence (key "round_record"), in
// round order; decisions without one are skipped.
[[nodiscard]] std::vector<RoundRecord> round_records(const std::vector<archive::Decision>& decisions);

}  // namespace kh::control
