#include "eval/lane_workers.h"

#include <fmt/format.h>

#include <set>
#include <variant>

#include "compile/build_cache.h"
#include "error/error.h"
#include "eval/check/output_checker.h"
#include "eval/device_peaks_json.h"
#include "eval/python/python_installation.h"
#include "eval/python/python_solution.h"
#include "eval/solution_build.h"
#include "eval/wire/kernel_rejected.h"
#include "eval/workload_shapes.h"
#include "worker/self_executable.h"

namespace kh {

namespace {

// The folders of the safetensors files the workloads read: shown read-only in the
// workers' jails (nothing else of the trace set is).
std::vector<std::filesystem::path> input_folders(const EvaluationTarget& t) {
  std::set<std::filesystem::path> dirs;
  for (const Workload& w : t.workloads) {
    for (const auto& [name, input] : w.inputs) {
      if (const auto* file = std::get_if<SafetensorsInput>(&input.source)) {
        std::error_code ec;
        const std::filesystem::path path = std::filesystem::absolute(t.root / file->path, ec);
        if (!ec && std::filesystem::exists(path, ec)) dirs.insert(path.parent_path());
      }
    }
  }
  return {dirs.begin(), dirs.end()};
}

// A worker that runs a Python solution embeds the same interpreter the orchestrator
// finds, so its jail shows that installation read-only. Where none is found the worker
// finds none either and says so when the solution loads.
void show_python(WorkerConfig& c) {
  try {
    const python::PythonInstallation python = python::discover_python();
    c.inputs.insert(c.inputs.end(), python.folders.begin(), python.folders.end());
    c.inputs.push_back(python.executable);
  } catch (const Error& e) {
    fmt::print(stderr, "note: {}\n", e.what());
  }
}

WorkerConfig worker_config(const EvaluationTarget& target, const EvalOptions& o, const DeviceLane& lane,
                           const std::filesystem::path& work_dir, const char* who) {
  const bool candidate = std::string_view(who) == "candidate";
  WorkerConfig c;
  c.inputs = input_folders(target);
  if (is_python_language((candidate ? target.candidate : target.reference).spec.language)) show_python(c);
  c.executable = o.worker_executable.empty() ? self_executable() : o.worker_executable;
  c.backend = lane.backend;
  c.work_dir = work_dir / who;
  c.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(o.timeout);
  c.candidate = candidate;
  c.env = lane.env;
  return c;
}

std::filesystem::path cache_dir_of(const EvalOptions& o) {
  return o.cache_dir.empty() ? BuildCache::default_dir() : o.cache_dir;
}

// The parts of the reference-latency key that one lane fixes: what was measured (the
// reference's build) and where (backend and device model, nominal clock included).
nlohmann::ordered_json reference_key(const BuildResult& reference_build,
                                     const nlohmann::ordered_json& lane_device, const EvalOptions& o) {
  nlohmann::ordered_json device = nlohmann::ordered_json::object();
  for (const char* field :
       {"name", "driver", "runtime", "compute_capability", "sm_count", "nominal_sm_clock_mhz"})
    if (lane_device.contains(field)) device[field] = lane_device[field];
  return {
      {"format", 1}, {"reference_build", reference_build.key}, {"backend", o.backend}, {"device", device}};
}

// The result of a workload left unrun after `streak` consecutive fatal failures.
WorkloadResult not_run(const Workload& w, const WorkloadResult& last, int streak) {
  WorkloadResult r;
  r.workload = w;
  r.status = last.status;
  r.fatal = true;
  r.not_run = true;
  r.log = fmt::format(
      "not run: the {} workloads before this one ended in {} (timeout or crash), so the solution was not run "
      "on the rest (--max-consecutive-failures {}; 0 runs every workload). Last failure ({}): {}",
      streak, status_name(last.status), streak, last.workload.uuid, last.log);
  return r;
}

}  // namespace

std::vector<DeviceLane> evaluation_lanes(const EvalOptions& options) {
  if (!options.lanes.empty()) return options.lanes;
  return {DeviceLane{0, options.backend, "", "", "", {}}};
}

LaneWorkers::LaneWorkers(const EvaluationTarget& target, const EvalOptions& options, const DeviceLane& lane,
                         const std::filesystem::path& work_dir)
    : options_(options),
      candidate_config_(worker_config(target, options, lane, work_dir, "candidate")),
      latencies_(cache_dir_of(options), options.reference_cache_max_age) {
  // The candidate's worker starts beside the reference's, the builds and the reference's
  // load: each start is a process, a jail and a CUDA context.
  candidate_ = std::make_unique<MeasurementClient>(candidate_config_, MeasurementClient::SpawnOnly{});
  reference_ =
      std::make_unique<MeasurementClient>(worker_config(target, options, lane, work_dir, "reference"));
  device_.device = reference_->device();
  // The worker sees its lane's GPU as device 0; the trace names it as the host does.
  device_.device["index"] = lane.index;
}

nlohmann::ordered_json LaneWorkers::sandbox() {
  return (candidate_started_ ? *candidate_ : *reference_).isolation().to_json();
}

void LaneWorkers::prepare_reference(const EvaluationTarget& target, const BuildResult& reference_build) {
  if (!options_.speed_of_light) {
    device_.peaks_note = "speed of light not requested";
  } else if (!target.speed_of_light) {
    device_.peaks_note = fmt::format("definition '{}' has no speed-of-light model", target.definition.name);
  } else {
    // A failure to measure the peaks costs the evaluation nothing but the floor.
    try {
      device_.peaks = cached_device_peaks(*reference_, cache_dir_of(options_));
    } catch (const Error& e) {
      device_.peaks_note = e.what();
      fmt::print(stderr, "note: no speed-of-light floor: {}\n", e.what());
    }
  }
  reference_key_ = reference_key(reference_build, device_.device, options_);
  reference_->load(load_request(target.reference, target.definition, reference_build));
}

std::optional<CandidateLoadFailure> LaneWorkers::start_candidate(const EvaluationTarget& target,
                                                                 const BuildResult& candidate_build) {
  candidate_->await_start();
  candidate_started_ = true;
  try {
    candidate_->load(load_request(target.candidate, target.definition, candidate_build));
  } catch (const KernelRejected& e) {
    // A Python solution that does not import: found by the worker, before any call.
    return CandidateLoadFailure{EvalStatus::compile_error, std::string("compile error: ") + e.what()};
  } catch (const Error& e) {
    return CandidateLoadFailure{EvalStatus::runtime_error, e.what()};
  }
  checker_ = make_output_checker(target.checker);
  return std::nullopt;
}

WorkloadResult LaneWorkers::evaluate(const EvaluationTarget& target, const Workload& workload,
                                     SeedStream& seeds) {
  if (options_.max_consecutive_failures > 0 && streak_ >= options_.max_consecutive_failures)
    return not_run(workload, *last_fatal_, streak_);
  const double nominal = candidate_->device().value("nominal_sm_clock_mhz", 0.0);
  WorkloadContext ctx{target.definition, workload,
                      target.root,       *checker_,
                      target.tolerance,  options_,
                      nominal,           options_.cache_reference_latency ? &latencies_ : nullptr,
                      reference_key_,    is_python_language(target.candidate.spec.language)};
  WorkloadResult r = WorkloadEvaluation(ctx, *candidate_, *reference_, seeds).run();
  apply_speed_of_light(target, r);
  if (r.fatal) {
    ++streak_;
    last_fatal_ = r;
  } else {
    streak_ = 0;
  }
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
