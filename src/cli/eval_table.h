// Printing an evaluation: a per-workload table for people, JSON for scripts.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "eval/evaluator.h"
#include "trace/trace.h"

namespace kh::cli {

void print_eval_table(const EvaluationTarget& target, const SolutionEvaluation& result);
// `archived`: where the run was recorded ({dir, run_id, solution_content_id}), or null.
void print_eval_json(const EvaluationTarget& target, const SolutionEvaluation& result,
                     const std::vector<Trace>& traces, const nlohmann::ordered_json& archived = nullptr,
                     const nlohmann::ordered_json& executor = nullptr);

}  // namespace kh::cli
