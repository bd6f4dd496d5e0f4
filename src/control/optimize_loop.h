// `kharness optimize`: rounds until a budget is spent (rounds, candidates, wall time,
// tokens), resumable from the archive at any moment (loop_state.h, step_runner.h).
// LoopRunner drives one loop round by round: run_optimize runs it to the end, and an
// ablation (ablation.h) interleaves several, one round of each in turn.
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
#include "control/step_runner.h"
#include "profile/shape_regimes.h"
#include "report/promoted_speedup.h"

namespace kh::control {

struct LoopSummary {
  std::string loop_id;
  bool resumed = false;
  Retained start;
  Retained best;
  std::int64_t rounds = 0;  // finished rounds of the loop, all runs
  std::int64_t rounds_this_run = 0;
  std::size_t candidates = 0;  // evaluated over every round
  std::size_t measured = 0;    // evaluations made by this run
  std::size_t reused = 0;      // evaluations this run found recorded (a resumed round)
  std::int64_t tokens = 0;     // input + output tokens the agents reported, every round
  double seconds = 0;          // wall time of the finished rounds, all runs
  // The best's speedup over the start: the reported speedup of the promotion that made it
  // the best (report/promoted_speedup.h); absent when nothing was promoted.
  std::optional<report::PromotedSpeedup> speedup;
  std::optional<std::int64_t> speedup_round;  // the round of that promotion
  std::vector<archive::Decision> decisions;
  std::string stopped_by;        // which budget ended the run
  std::set<std::string> banned;  // content ids banned from the loop (step_marks.h)

  [[nodiscard]] nlohmann::ordered_json json() const;
};

class LoopRunner {
 public:
  // Opens (or resumes) the loop; throws kh::Error as open_loop does.
  LoopRunner(archive::Archive& archive, LoopConfig config);

  // Which budget stops the loop before its next round, or "" when none does. Time counts
  // the loop's finished rounds, or, when larger, the earlier runs' rounds plus
  // `run_seconds` (this run's wall time so far; 0 for a loop interleaved with others).
  [[nodiscard]] std::string spent(double run_seconds = 0) const;
  // Runs the next round and records its decision. Throws kh::Error as run_optimize does.
  void run_next_round();

  [[nodiscard]] const LoopState& state() const noexcept { return state_; }
  [[nodiscard]] const LoopConfig& config() const noexcept { return config_; }
  [[nodiscard]] LoopSummary summary(std::string stopped_by) const;

 private:
  archive::Archive& archive_;
  LoopConfig config_;
  LoopState state_;
  double earlier_runs_s_ = 0;  // the rounds of earlier runs
  std::int64_t rounds_this_run_ = 0;
  profile::RegimePlan plan_;
  StepRunner steps_;
};

// Throws kh::Error for failures of the harness (no device, the reference does not
// build) or of an agent; whatever was recorded before stays, and a new run resumes.
[[nodiscard]] LoopSummary run_optimize(archive::Archive& archive, const LoopConfig& config);

}  // namespace kh::control
