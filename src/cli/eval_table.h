// Printing an evaluation: a per-workload table for people, JSON for scripts.
#pragma once

#include <vector>

#include "eval/evaluator.h"
#include "trace/trace.h"

namespace kh::cli {

void print_eval_table(const EvaluationTarget& target, const SolutionEvaluation& result);
void print_eval_json(const EvaluationTarget& target, const SolutionEvaluation& result,
                     const std::vector<Trace>& traces);

}  // namespace kh::cli
