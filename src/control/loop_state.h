// Where a loop stands, rebuilt from the archive alone: its manifest (config: seed,
// start) and its decisions (one per finished round, each listing the candidates it
// evaluated). A loop killed at any moment is resumed from this: the finished rounds are
// not run again, the retained best is the last promoted candidate, and the round in
// progress is re-run, reusing every evaluation it had recorded (step_runner.h).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "archive/controller_log.h"
#include "control/loop_config.h"
#include "trace/solution.h"

namespace kh::control {

struct Retained {
  Solution solution;
  std::string text;
  std::string content_id;
};

struct LoopState {
  std::string loop_id;
  std::uint64_t seed = 0;
  Retained start;
  Retained best;
  std::int64_t rounds_done = 0;
  std::vector<std::string> evaluated;  // content ids of the candidates of finished rounds, in order
  std::vector<Solution> history;       // the same candidates, as solutions
  std::size_t rejected_answers = 0;    // answers refused before evaluation; they count against the budget
  std::vector<archive::Decision> decisions;
  std::int64_t tokens = 0;  // input + output tokens the agents reported in the finished rounds
  double elapsed_s = 0;     // wall time of the finished rounds
  bool resumed = false;     // the loop had a manifest before this run
  // Content ids banned from the loop (step_marks.h): never evaluated again, and a banned
  // promoted solution is no longer the retained best (the one it replaced is again).
  std::set<std::string> banned;
};

// The loop id a config names (its own, or <definition>-<12 hex of the start>).
[[nodiscard]] std::string loop_id_of(const LoopConfig& config);

// Opens (or starts) the loop in the archive. Steps left running by a dead orchestrator
// become strikes (step_marks.h). Throws kh::Error when the config asks for a seed other
// than the one the loop was started with, or when another process runs the loop.
[[nodiscard]] LoopState open_loop(archive::Archive& archive, const LoopConfig& config);

// A solution's exact JSON by content id. Throws kh::Error when it is not archived.
[[nodiscard]] std::string archived_solution_text(archive::Archive& archive, std::string_view content_id);
// The content id a unique prefix names. Throws kh::Error naming `field` when none or several do.
[[nodiscard]] std::string resolve_content_id(archive::Archive& archive, std::string_view prefix,
                                             std::string_view field);

}  // namespace kh::control
