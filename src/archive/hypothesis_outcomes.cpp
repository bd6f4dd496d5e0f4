#include "archive/hypothesis_outcomes.h"

#include <algorithm>
#include <array>

#include "archive/utc_time.h"
#include "archive/write_transaction.h"
#include "error/error.h"

namespace kh::archive {
namespace {

constexpr std::array<std::string_view, 4> kOutcomes = {"promoted", "archived", "rejected", "failed"};

void check_outcome(const HypothesisOutcome& row) {
  if (std::find(kOutcomes.begin(), kOutcomes.end(), row.outcome) == kOutcomes.end())
    throw Error(Location{"", 0, "outcome"},
                "'" + row.outcome + "' is not promoted, archived, rejected or failed");
  if (row.definition.empty()) throw Error(Location{"", 0, "definition"}, "is empty");
}

}  // namespace

RowId record_hypothesis_outcome(Archive& archive, const HypothesisOutcome& r) {
  check_outcome(r);
  Database& db = archive.db();
  return write_transaction(db, [&] {
    Statement s = db.prepare(
        "INSERT INTO hypothesis_outcomes(definition, regime, family, direction, rationale, directive, "
        "outcome, reason, speedup_delta, loop_id, round, content_hash, recorded_at, candidate_family) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(definition, loop_id, round, content_hash) DO UPDATE SET "
        "regime = excluded.regime, family = excluded.family, direction = excluded.direction, "
        "candidate_family = excluded.candidate_family, "
        "rationale = excluded.rationale, directive = excluded.directive, outcome = excluded.outcome, "
        "reason = excluded.reason, speedup_delta = excluded.speedup_delta, recorded_at = "
        "excluded.recorded_at");
    s.bind(1, r.definition).bind(2, r.regime).bind(3, r.family).bind(4, r.direction).bind(5, r.rationale);
    s.bind(6, r.directive).bind(7, r.outcome).bind(8, r.reason).bind(9, r.speedup_delta);
    s.bind(10, r.loop_id).bind(11, r.round).bind(12, r.content_hash);
    s.bind(13, r.recorded_at.empty() ? utc_now() : r.recorded_at);
    s.bind(14, r.candidate_family);
    s.run();
    // An upsert that updated leaves last_insert_rowid stale: read the row's id back.
    Statement id = db.prepare(
        "SELECT id FROM hypothesis_outcomes WHERE definition = ? AND loop_id = ? AND round = ? AND "
        "content_hash = ?");
    id.bind(1, r.definition).bind(2, r.loop_id).bind(3, r.round).bind(4, r.content_hash);
    id.step();
    return id.column_int(0);
  });
}

std::vector<HypothesisOutcome> load_hypothesis_outcomes(Archive& archive, std::string_view definition,
                                                        std::string_view regime) {
  // An empty string_view may bind as NULL, so "all regimes" is its own statement.
  const std::string columns =
      "SELECT definition, regime, family, direction, rationale, directive, outcome, reason, speedup_delta, "
      "loop_id, round, content_hash, recorded_at, candidate_family FROM hypothesis_outcomes WHERE definition "
      "= ?";
  Statement s =
      archive.db().prepare(columns + (regime.empty() ? " ORDER BY id" : " AND regime = ? ORDER BY id"));
  s.bind(1, definition);
  if (!regime.empty()) s.bind(2, regime);
  std::vector<HypothesisOutcome> out;
  while (s.step()) {
    HypothesisOutcome r;
    r.definition = s.column_text(0);
    r.regime = s.column_text(1);
    r.family = s.column_text(2);
    r.direction = s.column_text(3);
    r.rationale = s.column_text(4);
    r.directive = s.column_text(5);
    r.outcome = s.column_text(6);
    r.reason = s.column_text(7);
    r.speedup_delta = s.column_optional_double(8);
    r.loop_id = s.column_text(9);
    r.round = s.column_int(10);
    r.content_hash = s.column_text(11);
    r.recorded_at = s.column_text(12);
    r.candidate_family = s.column_text(13);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace kh::archive
