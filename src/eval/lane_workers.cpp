#include "eval/lane_workers.h"

#include <fmt/format.h>

#include "build/build_cache.h"
#include "build/kernel_signature.h"
#include "error/error.h"
#include "eval/check/output_checker.h"
#include "eval/device_peaks_json.h"
#include "eval/solution_build.h"
#include "eval/workload_shapes.h"
#include "worker/self_executable.h"

namespace kh {

namespace {

WorkerConfig worker_config(const EvalOptions& o, const DeviceLane& lane,
                           const std::filesystem::path& work_dir, const char* who) {
  WorkerConfig c;
  c.executable = o.worker_executable.empty() ? self_executable() : o.worker_executable;
  c.backend = lane.backend;
  c.work_dir = work_dir / who;
  c.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(o.timeout);
  c.candidate = std::string_view(who) == "candidate";
  c.env = lane.env;
  return c;
}

}  // namespace

std::vector<DeviceLane> evaluation_lanes(const EvalOptions& options) {
  if (!options.lanes.empty()) return options.lanes;
  return {DeviceLane{0, options.backend, "", "", "", {}}};
}

LaneWorkers::LaneWorkers(const EvalOptions& options, const DeviceLane& lane,
                         const std::filesystem::path& work_dir)
    : options_(options), candidate_config_(worker_config(options, lane, work_dir, "candidate")) {
  reference_ = std::make_unique<MeasurementClient>(worker_config(options, lane, work_dir, "reference"));
  device_.device = reference_->device();
  // The worker sees its lane's GPU as device 0; the trace names it as the host does.
  device_.device["index"] = lane.index;
}

void LaneWorkers::prepare_reference(const EvaluationTarget& target, const BuildResult& reference_build) {
  if (!options_.speed_of_light) {
    device_.peaks_note = "speed of light not requested";
  } else if (!target.speed_of_light) {
    device_.peaks_note = fmt::format("definition '{}' has no speed-of-light model", target.definition.name);
  } else {
    // A failure to measure the peaks costs the evaluation nothing but the floor.
    try {
      device_.peaks = cached_device_peaks(
          *reference_, options_.cache_dir.empty() ? BuildCache::default_dir() : options_.cache_dir);
    } catch (const Error& e) {
      device_.peaks_note = e.what();
      fmt::print(stderr, "note: no speed-of-light floor: {}\n", e.what());
    }
  }
  reference_->load(
      reference_build.library.string(),
      signature_text(kernel_signature(target.definition, target.reference.spec.entry_function())));
}

std::optional<std::string> LaneWorkers::start_candidate(const EvaluationTarget& target,
                                                        const BuildResult& candidate_build) {
  candidate_ = std::make_unique<MeasurementClient>(candidate_config_);
  try {
    candidate_->load(
        candidate_build.library.string(),
        signature_text(kernel_signature(target.definition, target.candidate.spec.entry_function())));
  } catch (const Error& e) {
    return std::string(e.what());
  }
  checker_ = make_output_checker(target.checker);
  return std::nullopt;
}

WorkloadResult LaneWorkers::evaluate(const EvaluationTarget& target, const Workload& workload,
                                     SeedStream& seeds) {
  const double nominal = candidate_->device().value("nominal_sm_clock_mhz", 0.0);
  WorkloadContext ctx{target.definition, workload, target.root, *checker_,
                      target.tolerance,  options_, nominal};
  WorkloadResult r = WorkloadEvaluation(ctx, *candidate_, *reference_, seeds).run();
  apply_speed_of_light(target, r);
  return r;
}

void LaneWorkers::apply_speed_of_light(const EvaluationTarget& target, WorkloadResult& w) const {
  if (!target.speed_of_light) return;
  try {
    w.work = evaluate_work(*target.speed_of_light, resolve_axes(target.definition, w.workload));
  } catch (const Error& e) {
    w.log += (w.log.empty() ? "" : "\n") + std::string("speed-of-light model: ") + e.what();
    return;
  }
  if (device_.peaks)
    w.speed_of_light = speed_of_light(*w.work, target.speed_of_light->compute, *device_.peaks);
}

}  // namespace kh
