// What the optimisation controller (issue 7) keeps in the archive: one decision per
// round (archive only, promote, or reject and restore, with its evidence) and a
// manifest of key/value JSON per optimisation loop, from which a killed loop resumes.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "archive/archive.h"
#include "archive/index_rows.h"

namespace kh::archive {

enum class DecisionKind { archive_only, promote, reject_restore };

[[nodiscard]] std::string_view decision_kind_name(DecisionKind k) noexcept;
[[nodiscard]] std::optional<DecisionKind> parse_decision_kind(std::string_view name) noexcept;

struct Decision {
  std::string loop_id;
  std::int64_t round = 0;
  DecisionKind kind = DecisionKind::archive_only;
  std::optional<std::string> solution;  // content id of the candidate decided on
  std::optional<std::string> baseline;  // content id of the best retained before
  nlohmann::ordered_json evidence = nlohmann::ordered_json::object();
  std::string started_at;  // when the round began
  std::string decided_at;  // empty: now
};

// Throws kh::Error when a named solution is not in the archive.
RowId record_decision(Archive& archive, const Decision& decision);
// The loop's decisions, by round then time of recording.
[[nodiscard]] std::vector<Decision> load_decisions(Archive& archive, std::string_view loop_id);

// Sets (or replaces) one manifest entry, atomically.
void put_manifest(Archive& archive, std::string_view loop_id, std::string_view key,
                  const nlohmann::ordered_json& value);
[[nodiscard]] std::map<std::string, nlohmann::ordered_json> load_manifest(Archive& archive,
                                                                          std::string_view loop_id);
// Removes one manifest entry (a no-op when it is absent).
void erase_manifest(Archive& archive, std::string_view loop_id, std::string_view key);
// Sets the entry only when the key is new; false when it exists (another writer won).
bool insert_manifest(Archive& archive, std::string_view loop_id, std::string_view key,
                     const nlohmann::ordered_json& value);
// Replaces the entry only while it still holds `expected` (compare and swap); false when
// it changed meanwhile or is absent.
bool replace_manifest_if(Archive& archive, std::string_view loop_id, std::string_view key,
                         const nlohmann::ordered_json& expected, const nlohmann::ordered_json& value);
// Every loop id with a manifest entry, sorted.
[[nodiscard]] std::vector<std::string> manifest_loops(Archive& archive);

}  // namespace kh::archive
