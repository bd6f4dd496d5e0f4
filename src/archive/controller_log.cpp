#include "archive/controller_log.h"

#include <array>

#include "archive/utc_time.h"
#include "archive/write_transaction.h"
#include "error/error.h"

namespace kh::archive {
namespace {

constexpr std::array<std::string_view, 3> kKinds = {"archive_only", "promote", "reject_restore"};

std::optional<RowId> solution_id(Database& db, const std::optional<std::string>& content_id,
                                 const char* field) {
  if (!content_id) return std::nullopt;
  Statement s = db.prepare("SELECT id FROM solutions WHERE content_id = ?");
  s.bind(1, *content_id);
  if (!s.step()) throw Error(Location{"", 0, field}, "solution " + *content_id + " is not in the archive");
  return s.column_int(0);
}

}  // namespace

std::string_view decision_kind_name(DecisionKind k) noexcept { return kKinds[static_cast<std::size_t>(k)]; }

std::optional<DecisionKind> parse_decision_kind(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kKinds.size(); ++i)
    if (kKinds[i] == name) return static_cast<DecisionKind>(i);
  return std::nullopt;
}

RowId record_decision(Archive& archive, const Decision& d) {
  Database& db = archive.db();
  return write_transaction(db, [&] {
    Statement s = db.prepare(
        "INSERT INTO decisions(loop_id, round, kind, solution_id, baseline_id, evidence_json, started_at, "
        "decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, d.loop_id).bind(2, d.round).bind(3, decision_kind_name(d.kind));
    s.bind(4, solution_id(db, d.solution, "solution")).bind(5, solution_id(db, d.baseline, "baseline"));
    s.bind(6, d.evidence.dump())
        .bind(7, d.started_at)
        .bind(8, d.decided_at.empty() ? utc_now() : d.decided_at);
    s.run();
    return db.last_insert_rowid();
  });
}

std::vector<Decision> load_decisions(Archive& archive, std::string_view loop_id) {
  Statement s = archive.db().prepare(
      "SELECT d.round, d.kind, c.content_id, b.content_id, d.evidence_json, d.started_at, d.decided_at "
      "FROM decisions d LEFT JOIN solutions c ON c.id = d.solution_id LEFT JOIN solutions b ON b.id = "
      "d.baseline_id "
      "WHERE d.loop_id = ? ORDER BY d.round, d.id");
  s.bind(1, loop_id);
  std::vector<Decision> out;
  while (s.step()) {
    Decision d;
    d.loop_id = std::string(loop_id);
    d.round = s.column_int(0);
    d.kind = parse_decision_kind(s.column_text(1)).value_or(DecisionKind::archive_only);
    d.solution = s.column_optional_text(2);
    d.baseline = s.column_optional_text(3);
    d.evidence = nlohmann::ordered_json::parse(s.column_text(4), nullptr, false);
    d.started_at = s.column_text(5);
    d.decided_at = s.column_text(6);
    out.push_back(std::move(d));
  }
  return out;
}

void put_manifest(Archive& archive, std::string_view loop_id, std::string_view key,
                  const nlohmann::ordered_json& value) {
  Database& db = archive.db();
  write_transaction(db, [&] {
    Statement s = db.prepare(
        "INSERT INTO loop_manifest(loop_id, key, value_json, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(loop_id, key) DO UPDATE SET value_json = excluded.value_json, updated_at = "
        "excluded.updated_at");
    s.bind(1, loop_id).bind(2, key).bind(3, value.dump()).bind(4, utc_now());
    s.run();
  });
}

void erase_manifest(Archive& archive, std::string_view loop_id, std::string_view key) {
  Database& db = archive.db();
  write_transaction(db, [&] {
    Statement s = db.prepare("DELETE FROM loop_manifest WHERE loop_id = ? AND key = ?");
    s.bind(1, loop_id).bind(2, key);
    s.run();
  });
}

std::map<std::string, nlohmann::ordered_json> load_manifest(Archive& archive, std::string_view loop_id) {
  Statement s =
      archive.db().prepare("SELECT key, value_json FROM loop_manifest WHERE loop_id = ? ORDER BY key");
  s.bind(1, loop_id);
  std::map<std::string, nlohmann::ordered_json> out;
  while (s.step())
    out.emplace(s.column_text(0), nlohmann::ordered_json::parse(s.column_text(1), nullptr, false));
  return out;
}

bool insert_manifest(Archive& archive, std::string_view loop_id, std::string_view key,
                     const nlohmann::ordered_json& value) {
  Database& db = archive.db();
  return write_transaction(db, [&] {
    Statement s = db.prepare(
        "INSERT INTO loop_manifest(loop_id, key, value_json, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(loop_id, key) DO NOTHING");
    s.bind(1, loop_id).bind(2, key).bind(3, value.dump()).bind(4, utc_now());
    s.run();
    return db.changes() == 1;
  });
}

bool replace_manifest_if(Archive& archive, std::string_view loop_id, std::string_view key,
                         const nlohmann::ordered_json& expected, const nlohmann::ordered_json& value) {
  Database& db = archive.db();
  return write_transaction(db, [&] {
    Statement s = db.prepare(
        "UPDATE loop_manifest SET value_json = ?, updated_at = ? WHERE loop_id = ? AND key = ? AND "
        "value_json = ?");
    s.bind(1, value.dump()).bind(2, utc_now()).bind(3, loop_id).bind(4, key).bind(5, expected.dump());
    s.run();
    return db.changes() == 1;
  });
}

std::vector<std::string> manifest_loops(Archive& archive) {
  Statement s = archive.db().prepare("SELECT DISTINCT loop_id FROM loop_manifest ORDER BY loop_id");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.column_text(0));
  return out;
}

}  // namespace kh::archive
