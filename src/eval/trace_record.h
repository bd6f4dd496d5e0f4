// Writes an evaluation as FlashInfer-Trace: one Trace per workload, with kharness's
// own evidence (protocol, seeds, sample statistics, timer, environment) under
// evaluation.kharness so upstream readers ignore it and nothing is lost.
//
// REWARD_HACK is ours; `official_status` maps it to the nearest upstream status
// (RUNTIME_ERROR) with the reason kept in `log`, for tools that only know the
// official list.
#pragma once

#include <nlohmann/json.hpp>

#include "eval/eval_options.h"
#include "eval/evaluator.h"
#include "trace/trace.h"

namespace kh {

struct TraceStyle {
  bool official_status = false;  // map REWARD_HACK to RUNTIME_ERROR
};

[[nodiscard]] Trace make_trace(const EvaluationTarget& target, const SolutionEvaluation& evaluation,
                               const WorkloadResult& workload, const EvalOptions& options,
                               TraceStyle style = {});

// The environment block of every trace from this evaluation.
[[nodiscard]] nlohmann::ordered_json environment_json(const SolutionEvaluation& evaluation);

}  // namespace kh
