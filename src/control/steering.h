// Steering: a person's directive for a loop (or for every loop of a definition), kept in
// the loop manifest (archive::put_manifest) under keys "directive/000001", ... until a
// round takes it. take_directives marks each one consumed with the round number, so a
// loop killed during round r gets the same directives again when it re-runs round r, and
// a loop that finished round r never sees them again.
//
// Directives for a definition live under the manifest loop id "definition:NAME"; the
// first loop of that definition to take one consumes it (its loop id is recorded).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "archive/archive.h"

namespace kh::control {

struct Directive {
  std::string scope;    // the manifest loop id: a loop id, or "definition:NAME"
  std::int64_t id = 0;  // 1, 2, ... within the scope
  std::string text;
  std::string regime;  // optional: the regime it is about
  std::string family;  // optional: the technique family it asks for
  std::string created_at;
  std::optional<std::int64_t> consumed_round;  // absent: pending
  std::string consumed_by;                     // the loop that took it

  [[nodiscard]] bool pending() const noexcept { return !consumed_round.has_value(); }
  [[nodiscard]] nlohmann::ordered_json json() const;
};

// The manifest loop id of a definition's directives.
[[nodiscard]] std::string definition_scope(std::string_view definition);

struct DirectiveRequest {
  std::string scope;  // loop id, or definition_scope(name)
  std::string text;   // not empty
  std::string regime;
  std::string family;
};

// Records a pending directive and returns it with its id. Throws kh::Error when the
// scope or the text is empty.
Directive add_directive(archive::Archive& archive, const DirectiveRequest& request);

// Every directive of `scope`, by id; of every scope when `scope` is empty.
[[nodiscard]] std::vector<Directive> list_directives(archive::Archive& archive, std::string_view scope = {});

// For round `round` of loop `loop_id` (of `definition`, may be empty): the directives
// still pending in the loop's scope and the definition's, plus those this loop already
// took at this same round (a re-run after a crash), oldest first. Marks the pending ones
// consumed by this loop at `round`.
std::vector<Directive> take_directives(archive::Archive& archive, std::string_view loop_id,
                                       std::string_view definition, std::int64_t round);

}  // namespace kh::control
