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
#include <string_view>
#include <utility>
#include <vector>

#include "archive/archive.h"
#include "archive/index_rows.h"
#include "archive/run_record.h"
#include "control/step_marks.h"
#include "control/sweep.h"
#include "eval/eval_options.h"
#include "eval/evaluator.h"
#include "scale/executor.h"

namespace kh::control {

// What every evaluation of a loop shares.
struct LoopTarget {
  EvaluationTarget base;                    // every workload; the candidate is replaced per step
  std::vector<std::size_t> gate_workloads;  // indices into base.workloads: the regimes' representatives
  // The timing of every step; each step names the statistic it is timed under
  // (StepRequest::protocol), and the rest of the protocol is shared.
  EvalOptions options;
};

enum class StepScope { gate, full };

// The options of a step timed under `kind`.
[[nodiscard]] EvalOptions step_options(const LoopTarget& target, ProtocolKind kind);

struct StepRequest {
  std::int64_t round = 0;
  std::string phase;  // "baseline-1", "gate", "full-1", "confirm", ...
  Solution solution;
  std::string solution_text;  // the exact JSON archived (its canonical hash is the content id)
  std::string role = "candidate";
  archive::Lineage lineage;
  StepScope scope = StepScope::full;
  // Steps of one round with the same non-empty pairing draw the same inputs whatever their
  // solution: the retained best's sweep and the candidate's that its ratio is taken against.
  // A cost that follows the data (MoE's routing, the indexer's sequence lengths) then cancels
  // in the ratio instead of moving it (on an H100, one MoE call's trial medians over three
  // input sets spanned 0.22-0.30 ms). Empty: inputs of the step's own solution and phase. A
  // candidate's steps never share a pairing, so it never meets the same inputs twice.
  std::string pairing;
  ProtocolKind protocol = ProtocolKind::official;
  bool retained_best = false;  // the loop's retained best (a paired baseline), not a new candidate
  bool start = false;          // the retained best is the loop's start (never banned)
};

class StepRunner {
 public:
  StepRunner(archive::Archive& archive, std::string loop_id, LoopTarget target, std::uint64_t seed,
             std::vector<std::string> command_line, std::function<void(const std::string&)> progress);

  // Throws kh::Error for failures of the harness; a failing candidate is a status.
  //
  // A step with a strike (step_marks.h: the orchestrator died or was stopped while its
  // solution ran) is not run into the same death again: a candidate's step is recorded
  // as failed (RUNTIME_ERROR, the log saying why) without running it. The retained best
  // has passed a full promotion and a person's kill -9 lands on whatever runs, so its
  // step is run again: a promoted best is recorded as failed at its second strike in
  // the step (and is banned), the start at its third (and is never banned: it is the
  // person's own, and there is nothing to fall back to). A banned solution is recorded
  // as failed without running.
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

  // Input seeds are named by `scope` in place of the loop id (ablation arms share one).
  void set_seed_scope(std::string scope) { seed_scope_ = std::move(scope); }
  // The base seed of a step's inputs (StepRequest::pairing), the same in every process.
  [[nodiscard]] std::uint64_t inputs_seed(const StepRequest& r, std::string_view content_id) const;

  [[nodiscard]] const LoopTarget& target() const noexcept { return target_; }
  [[nodiscard]] std::size_t measured() const noexcept { return measured_; }
  [[nodiscard]] std::size_t reused() const noexcept { return reused_; }
  // Runs of this loop's steps that failed verification when read back (archive/run_check.h),
  // one line each; those steps were measured again. Taken for the round's evidence.
  [[nodiscard]] std::vector<std::string> take_tampered() { return std::exchange(tampered_, {}); }
  // The loop's step marks, for what else runs code the loop does not control (an agent's command).
  [[nodiscard]] StepMarks& marks() noexcept { return marks_; }

 private:
  // A step to measure: its request (by index), key and evaluation.
  struct FreshStep {
    std::size_t request = 0;
    std::string key;
    std::string content_id;
    scale::EvaluationJob job;
  };

  archive::Archive& archive_;
  std::string loop_id_;
  LoopTarget target_;
  std::uint64_t seed_;
  std::string seed_scope_;  // empty: the loop id
  std::vector<std::string> command_line_;
  std::function<void(const std::string&)> progress_;
  std::size_t measured_ = 0;
  std::size_t reused_ = 0;
  std::vector<std::string> tampered_;
  std::optional<int> compute_capability_;  // of the device the last fresh evaluation ran on
  StepMarks marks_;
  std::shared_ptr<scale::Executor> executor_;  // null until the first evaluation: here, one at a time

  // The first recorded run of the step whose rows verify; a run that does not is noted
  // in tampered_ and passed over.
  std::optional<archive::RowId> verified_step_run(const std::string& key);
  // Records the step's run (traces, samples, the evaluation) and reads it back.
  Sweep record(const StepRequest& r, const std::string& key, const EvaluationTarget& target,
               const EvalOptions& options, const SolutionEvaluation& result, std::string started_at);
  // Records the step as failed on every workload without running it.
  Sweep record_failure(const StepRequest& r, const std::string& key, const std::string& why);

  [[nodiscard]] FreshStep fresh_step(const StepRequest& r, std::size_t index) const;
  // Why the step is recorded as failed without running (a ban, strikes beyond what it
  // survives), or nullopt.
  [[nodiscard]] std::optional<std::string> refusal(const StepRequest& r, const FreshStep& s) const;
  // Runs `batch` side by side and records each; returns the steps to try again (the
  // orchestrator was stopped and continued while they ran).
  std::vector<FreshStep> measure(const std::vector<StepRequest>& requests, std::vector<FreshStep> batch,
                                 std::vector<std::optional<Sweep>>& sweeps);
};

[[nodiscard]] std::string step_key(std::string_view loop_id, std::int64_t round, std::string_view phase,
                                   std::string_view content_id);
// The run's traces as a sweep, in evaluation order. Throws kh::Error when the run has none.
[[nodiscard]] Sweep read_sweep(archive::Archive& archive, archive::RowId run_id);

}  // namespace kh::control
