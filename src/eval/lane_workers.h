// LaneWorkers: the worker pair of one device lane (a reference worker and a candidate
// worker on the lane's device) and what the lane reported and measured about that
// device. An evaluation has one per lane; workloads are dealt over them.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "device/device_lane.h"
#include "eval/evaluator.h"
#include "eval/measurement_client.h"
#include "eval/reference_latency_cache.h"
#include "eval/workload_evaluation.h"

namespace kh {

// Why the candidate never ran on a lane: the same status for every workload.
struct CandidateLoadFailure {
  EvalStatus status = EvalStatus::runtime_error;
  std::string log;
};

class LaneWorkers {
 public:
  // Starts the lane's reference worker, which reports the device. Throws kh::Error when
  // it cannot start (no such device, the worker binary fails).
  LaneWorkers(const EvaluationTarget& target, const EvalOptions& options, const DeviceLane& lane,
              const std::filesystem::path& work_dir);

  [[nodiscard]] const LaneDevice& device() const noexcept { return device_; }
  // The isolation of the candidate's worker (the reference's until it starts).
  [[nodiscard]] nlohmann::ordered_json sandbox();

  // The device's peaks (measured once per device, then cached) when the target has a
  // speed-of-light model, then the reference's library. Throws kh::Error when the
  // reference cannot be loaded.
  void prepare_reference(const EvaluationTarget& target, const BuildResult& reference_build);

  // Starts the candidate's worker and loads its library. Loading runs the candidate's
  // global constructors, which may crash or hang, and imports a Python solution, which
  // may not import: the failure comes back as a status for every workload, not thrown.
  [[nodiscard]] std::optional<CandidateLoadFailure> start_candidate(const EvaluationTarget& target,
                                                                    const BuildResult& candidate_build);

  // One workload, decided in the orchestrator. After options.max_consecutive_failures
  // fatal results in a row on this lane, the workload is not run (WorkloadResult::not_run).
  // Throws kh::Error only for the harness's or the reference's failures.
  [[nodiscard]] WorkloadResult evaluate(const EvaluationTarget& target, const Workload& workload,
                                        SeedStream& seeds);

 private:
  void apply_speed_of_light(const EvaluationTarget& target, WorkloadResult& w) const;

  const EvalOptions& options_;
  WorkerConfig candidate_config_;
  std::unique_ptr<MeasurementClient> reference_;
  std::unique_ptr<MeasurementClient> candidate_;  // spawned with the reference, started by start_candidate()
  bool candidate_started_ = false;
  std::unique_ptr<OutputChecker> checker_;
  LaneDevice device_;
  ReferenceLatencyCache latencies_;
  nlohmann::ordered_json reference_key_ = nlohmann::ordered_json::object();
  int streak_ = 0;                            // consecutive fatal results on this lane
  std::optional<WorkloadResult> last_fatal_;  // the last of them
};

// The lanes an evaluation runs on: `options.lanes`, or one lane on the backend's default
// device.
[[nodiscard]] std::vector<DeviceLane> evaluation_lanes(const EvalOptions& options);

}  // namespace kh
