// A SolutionEvaluation as JSON, both ways, losing nothing the traces, the tables and the
// archive are made from (statuses, logs, seeds, verdicts, raw samples, builds, devices,
// peaks). A Slurm task writes its evaluation this way on the shared folder, and the one
// process that submitted the tasks reads them back and merges them, so a run evaluated
// across nodes is recorded exactly as one evaluated here would be.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "eval/evaluator.h"

namespace kh {

[[nodiscard]] nlohmann::ordered_json evaluation_to_json(const SolutionEvaluation& e);

// One latency measurement, both ways: part of an evaluation, and the body of a
// reference-latency cache entry. Throws kh::Error naming `where`.<field> on anything
// missing or mistyped.
[[nodiscard]] nlohmann::ordered_json latency_to_json(const LatencyMeasurement& m);
[[nodiscard]] LatencyMeasurement latency_from_json(const nlohmann::ordered_json& j, const std::string& where);

// `workloads` are the ones the evaluation ran, in its order: each result names its
// workload by uuid and must match. Throws kh::Error naming the field on anything missing,
// mistyped or unknown.
[[nodiscard]] SolutionEvaluation evaluation_from_json(const nlohmann::ordered_json& j,
                                                      std::span<const Workload> workloads);

}  // namespace kh
