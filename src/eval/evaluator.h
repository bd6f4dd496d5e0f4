// The harness's front door: build, isolate, check and time one solution on a set of
// workloads, against the definition's reference. docs/evaluation.md.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compile/build_request.h"
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

// What one device lane reported about its device (name, uuid, PCI id, index, clocks)
// and the peaks its speed-of-light floors come from.
struct LaneDevice {
  nlohmann::ordered_json device;
  std::optional<DevicePeaks> peaks;
  std::string peaks_note;  // why there are no peaks, when there are none
};

struct SolutionEvaluation {
  BuildResult candidate_build;
  BuildResult reference_build;
  nlohmann::ordered_json device;  // what the worker reported (name, driver, clocks, ...)
  std::string compiler;           // the toolchain's version line, e.g. "Cuda compilation tools, release 13.0"
  std::vector<WorkloadResult> workloads;
  std::optional<DevicePeaks> peaks;  // measured (or cached) when the target has a speed-of-light model
  std::string peaks_note;            // why there are no peaks, when there are none
  // The isolation the candidate's worker got (Isolation::to_json); the first lane's.
  nlohmann::ordered_json sandbox;
  // Every lane the workloads were dealt over (WorkloadResult::lane indexes it); device,
  // peaks and peaks_note above are the first lane's.
  std::vector<LaneDevice> lanes;

  [[nodiscard]] bool all_passed() const;
  // The device (and peaks) the workload ran on.
  [[nodiscard]] const nlohmann::ordered_json& device_of(const WorkloadResult& w) const;
  [[nodiscard]] const std::optional<DevicePeaks>& peaks_of(const WorkloadResult& w) const;
};

// Throws kh::Error only for failures of the harness or the reference (no device,
// reference does not build); every failure of the candidate is a status. With several
// lanes (options.lanes) the workloads are dealt over them, a worker pair each; results
// come back in the target's order, and on_workload/on_progress are called one at a time.
[[nodiscard]] SolutionEvaluation evaluate_solution(const EvaluationTarget& target,
                                                   const EvalOptions& options);

}  // namespace kh
