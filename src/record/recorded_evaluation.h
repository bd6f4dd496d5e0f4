// "Evaluate, then record": the one way an evaluation becomes a run in the archive. Its
// trace lines, the run record, the write, and a read-back check that the index kept
// what was written. `kharness eval --archive`, `rerun`, `profile --archive` and the
// loop's steps all come through here, so what a recorded run holds does not depend on
// which command recorded it.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "archive/archive.h"
#include "archive/run_writer.h"
#include "eval/eval_options.h"
#include "eval/evaluator.h"
#include "eval/trace_record.h"
#include "record/evaluation_record.h"
#include "trace/trace.h"

namespace kh::record {

// One FlashInfer-Trace line per workload of `result`, in its order.
[[nodiscard]] std::vector<Trace> evaluation_traces(const EvaluationTarget& target,
                                                   const SolutionEvaluation& result,
                                                   const EvalOptions& options, TraceStyle style = {});

// A last change to the record before it is written (rerun keeps the old run's
// reference row byte for byte).
using RecordAdjustment = std::function<void(archive::RunRecord&)>;

// Writes the run, with `context.finished_at` set now when empty, and reads it back: a
// run that does not read back as written (an index that rewrites rows as they go in)
// throws kh::Error naming the archive.
archive::WrittenRun record_evaluation(archive::Archive& store, const EvaluationTarget& target,
                                      const SolutionEvaluation& result, const EvalOptions& options,
                                      const std::vector<Trace>& traces, EvaluationContext context,
                                      const RecordAdjustment& adjust = {});

// How the evaluation runs: evaluate_solution here, or an executor (device lanes, Slurm).
using EvaluationRunner = std::function<SolutionEvaluation(const EvaluationTarget&, const EvalOptions&)>;

struct RecordedEvaluation {
  SolutionEvaluation result;
  std::vector<Trace> traces;
  std::optional<archive::WrittenRun> written;  // when an archive was given
};

struct RecordRequest {
  archive::Archive* store = nullptr;  // null: evaluate and make traces, record nothing
  EvaluationContext context;
  TraceStyle style;
  RecordAdjustment adjust;
};

// Runs `target` through `run` (empty: evaluate_solution), makes its traces and records
// it when `request.store` is set. With an archive, a base seed is pinned first (when
// none is set), so that `kharness rerun` can repeat the run exactly.
[[nodiscard]] RecordedEvaluation evaluate_and_record(const EvaluationTarget& target, EvalOptions options,
                                                     RecordRequest request, const EvaluationRunner& run = {});

}  // namespace kh::record
