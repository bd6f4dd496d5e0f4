// The loop's evaluations. Each is named by a step key ("<loop>/r3/gate/<content id>")
// and recorded as one archived run (origin "controller", the key at the end of its
// command line), so a loop killed at any moment and started again reuses every
// evaluation that was recorded and redoes the one that was not: none lost, none
// repeated. Results are always read back from the archive, so a reused sweep and a
// fresh one are the same numbers from the same place.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "archive/evaluation_record.h"
#include "archive/index_rows.h"
#include "archive/run_record.h"
#include "control/sweep.h"
#include "eval/eval_options.h"
#include "eval/evaluator.h"
#include "scale/executor.h"

namespace kh::control {

// What every evaluation of a loop shares.
struct LoopTarget {
  EvaluationTarget base;                    // every workload; the candidate is replaced per step
  std::vector<std::size_t> gate_workloads;  // indices into base.workloads: the regimes' representatives
  EvalOptions official;                     // the timing of gates, full sweeps and paired repeats
  EvalOptions robust;                       // the other protocol, for confirmation
};

enum class StepScope { gate, full };

struct StepRequest {
  std::int64_t round = 0;
  std::string phase;  // "baseline-1", "gate", "full-1", "confirm", ...
  Solution solution;
  std::string solution_text;  // the exact JSON archived (its canonical hash is the content id)
  std::string role = "candidate";
  archive::Lineage lineage;
  StepScope scope = StepScope::full;
  TimingProtocol protocol = TimingProtocol::official;
};

class StepRunner {
 public:
  StepRunner(archive::Archive& archive, std::string loop_id, LoopTarget target, std::uint64_t seed,
             std::vector<std::string> command_line, std::function<void(const std::string&)> progress);

  // Throws kh::Error for failures of the harness; a failing candidate is a status.
  Sweep run(const StepRequest& request);
  // Several steps at once, through the executor: side by side on a host's lanes, or as
  // one Slurm job array. Steps already in the archive are read back, the others measured
  // and recorded one by one in request order. Sweeps in request order.
  std::vector<Sweep> run_all(const std::vector<StepRequest>& requests);

  // Where evaluations run (scale/executor.h); until set, here, on the default device.
  void use_executor(std::shared_ptr<scale::Executor> executor) { executor_ = std::move(executor); }

  // Builds the solutions into the build cache side by side, as the evaluations that follow
  // will, so that a stage's compiles overlap instead of queueing one per evaluation. A
  // no-op until this runner has evaluated once (the device decides the arch) and where
  // only one compiler would run. Returns how many were built (cache hits included).
  std::size_t prebuild(const std::vector<Solution>& solutions);

  [[nodiscard]] const LoopTarget& target() const noexcept { return target_; }
  [[nodiscard]] std::size_t measured() const noexcept { return measured_; }
  [[nodiscard]] std::size_t reused() const noexcept { return reused_; }

 private:
  // Writes one fresh evaluation as the step's run and reads it back as a sweep.
  Sweep record(const StepRequest& r, const scale::EvaluationJob& job, const SolutionEvaluation& result,
               const std::string& key, archive::EvaluationContext context);

  archive::Archive& archive_;
  std::string loop_id_;
  LoopTarget target_;
  std::uint64_t seed_;
  std::vector<std::string> command_line_;
  std::function<void(const std::string&)> progress_;
  std::size_t measured_ = 0;
  std::size_t reused_ = 0;
  std::optional<int> compute_capability_;  // of the device the last fresh evaluation ran on
  std::shared_ptr<scale::Executor> executor_;
};

[[nodiscard]] std::string step_key(std::string_view loop_id, std::int64_t round, std::string_view phase,
                                   std::string_view content_id);
// The run recorded for a step, if any.
[[nodiscard]] std::optional<archive::RowId> find_step_run(archive::Archive& archive, std::string_view key);
// The run's traces as a sweep, in evaluation order. Throws kh::Error when the run has none.
[[nodiscard]] Sweep read_sweep(archive::Archive& archive, archive::RowId run_id);
// How many runs this loop recorded (every step of every round).
[[nodiscard]] std::int64_t count_step_runs(archive::Archive& archive, std::string_view loop_id);

}  // namespace kh::control
