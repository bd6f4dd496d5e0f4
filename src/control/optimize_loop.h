// `kharness optimize`: rounds until a budget is spent (rounds, candidates, wall time),
// resumable from the archive at any moment (loop_state.h, step_runner.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "archive/controller_log.h"
#include "control/loop_config.h"
#include "control/loop_state.h"

namespace kh::control {

struct LoopSummary {
  std::string loop_id;
  bool resumed = false;
  Retained start;
  Retained best;
  std::int64_t rounds = 0;  // finished rounds of the loop, all runs
  std::int64_t rounds_this_run = 0;
  std::size_t candidates = 0;     // evaluated over every round
  std::size_t measured = 0;       // evaluations made by this run
  std::size_t reused = 0;         // evaluations this run found recorded (a resumed round)
  std::optional<double> speedup;  // best over start: the product of the promotions' paired speedups
  std::vector<archive::Decision> decisions;
  std::string stopped_by;        // which budget ended the run
  std::set<std::string> banned;  // content ids banned from the loop (step_marks.h)

  [[nodiscard]] nlohmann::ordered_json json() const;
};

// Throws kh::Error for failures of the harness (no device, the reference does not
// build) or of an agent; whatever was recorded before stays, and a new run resumes.
[[nodiscard]] LoopSummary run_optimize(archive::Archive& archive, const LoopConfig& config);

}  // namespace kh::control
