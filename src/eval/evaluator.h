// The harness's front door: build, isolate, check and time one solution on a set of
// workloads, against the definition's reference. SYSTEM.md section 2.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "build/build_request.h"
#include "eval/check/value_comparison.h"
#include "eval/eval_options.h"
#include "eval/workload_result.h"
#include "trace/definition.h"
#include "trace/solution.h"
#include "trace/workload.h"

namespace kh {

struct EvaluationTarget {
  Definition definition;
  std::vector<Workload> workloads;
  std::filesystem::path root;  // the trace set's root, for safetensors inputs
  Solution candidate;
  Solution reference;
  std::string checker = "default";
  Tolerance tolerance;
  std::optional<SpeedOfLightModel> speed_of_light;  // the operator's, when it has one
};

struct SolutionEvaluation {
  BuildResult candidate_build;
  BuildResult reference_build;
  nlohmann::ordered_json device;  // what the worker reported (name, driver, clocks, ...)
  std::string compiler;           // the toolchain's version line, e.g. "Cuda compilation tools, release 13.0"
  std::vector<WorkloadResult> workloads;
  std::optional<DevicePeaks> peaks;  // measured (or cached) when the target has a speed-of-light model
  std::string peaks_note;            // why there are no peaks, when there are none
  nlohmann::ordered_json sandbox;    // the isolation the candidate's worker got (Isolation::to_json)

  [[nodiscard]] bool all_passed() const;
};

// Throws kh::Error only for failures of the harness or the reference (no device,
// reference does not build); every failure of the candidate is a status.
[[nodiscard]] SolutionEvaluation evaluate_solution(const EvaluationTarget& target,
                                                   const EvalOptions& options);

}  // namespace kh
