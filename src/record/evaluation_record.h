// Turns what `kharness eval` (or any caller of evaluate_solution) produced into a
// RunRecord: the solution as evaluated, both builds with logs and binaries, the
// workloads and the files they read, every trace line with its raw samples, the
// environment, and the options rerun needs to repeat the measurement.
#pragma once

#include <string>
#include <vector>

#include "archive/run_record.h"
#include "eval/eval_options.h"
#include "eval/evaluator.h"
#include "trace/trace.h"

namespace kh::record {

struct EvaluationContext {
  std::string candidate_json;  // the solution document as read; "" writes target.candidate
  std::string candidate_role = "candidate";
  archive::Lineage lineage;
  std::vector<std::string> command_line;
  std::string started_at;
  std::string finished_at;
  std::string origin = "eval";
  std::optional<std::int64_t> rerun_of;
};

[[nodiscard]] archive::RunRecord evaluation_record(const EvaluationTarget& target,
                                                   const SolutionEvaluation& result,
                                                   const EvalOptions& options,
                                                   const std::vector<Trace>& traces,
                                                   const EvaluationContext& context);

// Draws a base seed from the OS when none is set. Seeds stay fresh and unpredictable to
// the candidate, and a run that records its base seed can be repeated exactly.
void pin_seed(EvalOptions& options);

}  // namespace kh::record
