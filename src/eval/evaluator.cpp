#include "eval/evaluator.h"

#include <fmt/format.h>
#include <unistd.h>

#include <set>
#include <variant>

#include "build/build_cache.h"
#include "build/include_dir.h"
#include "build/toolchain.h"
#include "error/error.h"
#include "eval/device_peaks_json.h"
#include "eval/kernel.h"
#include "eval/measurement_client.h"
#include "eval/python/python_installation.h"
#include "eval/python/python_solution.h"
#include "eval/scratch_dir.h"
#include "eval/solution_build.h"
#include "eval/workload_evaluation.h"
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

WorkerConfig worker_config(const EvalOptions& o, const std::filesystem::path& work_dir, const char* who,
                           const EvaluationTarget& target) {
  WorkerConfig c;
  c.inputs = input_folders(target);
  const Solution& runs = std::string_view(who) == "candidate" ? target.candidate : target.reference;
  if (is_python_language(runs.spec.language)) show_python(c);
  c.executable = o.worker_executable.empty() ? self_executable() : o.worker_executable;
  c.backend = o.backend;
  c.work_dir = work_dir / who;
  c.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(o.timeout);
  c.candidate = std::string_view(who) == "candidate";
  return c;
}

std::string build_failure_log(const BuildResult& b) {
  std::string head = b.status == BuildResult::Status::timeout ? "compile timed out" : "compile error";
  if (!b.message.empty()) head += ": " + b.message;
  return b.log.empty() || b.log == b.message ? head : head + "\n" + b.log;
}

std::string compiler_identity(const std::string& text) {
  // The toolchain joins `--version` lines with "; ". nvcc's first line is a banner; the
  // release line is the one that identifies it.
  std::size_t begin = 0;
  if (const std::size_t release = text.find("release "); release != std::string::npos) {
    const std::size_t separator = text.rfind("; ", release);
    begin = separator == std::string::npos ? 0 : separator + 2;
  }
  const std::size_t end = text.find(';', begin);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// The device's peaks, when the target has a speed-of-light model to apply them to. A
// failure to measure them costs the evaluation nothing but the floor.
void attach_peaks(const EvaluationTarget& target, const EvalOptions& options, MeasurementClient& worker,
                  SolutionEvaluation& result) {
  if (!options.speed_of_light) {
    result.peaks_note = "speed of light not requested";
    return;
  }
  if (!target.speed_of_light) {
    result.peaks_note = fmt::format("definition '{}' has no speed-of-light model", target.definition.name);
    return;
  }
  try {
    result.peaks = cached_device_peaks(
        worker, options.cache_dir.empty() ? BuildCache::default_dir() : options.cache_dir);
  } catch (const Error& e) {
    result.peaks_note = e.what();
    fmt::print(stderr, "note: no speed-of-light floor: {}\n", e.what());
  }
}

void apply_speed_of_light(const EvaluationTarget& target, const SolutionEvaluation& result,
                          WorkloadResult& w) {
  if (!target.speed_of_light) return;
  try {
    w.work = evaluate_work(*target.speed_of_light, resolve_axes(target.definition, w.workload));
  } catch (const Error& e) {
    w.log += (w.log.empty() ? "" : "\n") + std::string("speed-of-light model: ") + e.what();
    return;
  }
  if (result.peaks) w.speed_of_light = speed_of_light(*w.work, target.speed_of_light->compute, *result.peaks);
}

// The parts of the reference-latency key that one evaluation fixes: what was measured
// (the reference's build) and where (backend and device, nominal clock included).
nlohmann::ordered_json reference_key(const SolutionEvaluation& e, const EvalOptions& o) {
  nlohmann::ordered_json device = nlohmann::ordered_json::object();
  for (const char* field :
       {"name", "driver", "runtime", "compute_capability", "sm_count", "nominal_sm_clock_mhz"})
    if (e.device.contains(field)) device[field] = e.device[field];
  return {
      {"format", 1}, {"reference_build", e.reference_build.key}, {"backend", o.backend}, {"device", device}};
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

bool SolutionEvaluation::all_passed() const {
  if (workloads.empty()) return false;
  for (const auto& w : workloads) {
    if (w.status != EvalStatus::passed) return false;
  }
  return true;
}

SolutionEvaluation evaluate_solution(const EvaluationTarget& target, const EvalOptions& options) {
  SolutionEvaluation result;
  const ScratchDir scratch(options.work_dir);
  const std::filesystem::path& work_dir = scratch.path();
  // The reference worker starts first: its device report picks the nvcc arch.
  const WorkerConfig reference_config = worker_config(options, work_dir, "reference", target);
  MeasurementClient reference(reference_config);
  result.device = reference.device();
  result.sandbox = reference.isolation().to_json();
  const BuildSettings settings =
      evaluation_build_settings(options, result.device.value("compute_capability", 0));
  const BuildCache cache = evaluation_build_cache(options);
  std::vector<BuildResult> builds =
      build_solutions(cache, {target.reference, target.candidate}, target.definition, settings, 2);
  result.compiler =
      compiler_identity(toolchain_for_language(settings.backend == "cuda" ? "cuda" : "cpp").version());
  result.reference_build = std::move(builds[0]);
  result.candidate_build = std::move(builds[1]);
  if (result.reference_build.status != BuildResult::Status::ok) {
    throw Error(fmt::format("the reference '{}' does not build: {}", target.reference.name,
                            build_failure_log(result.reference_build)));
  }
  attach_peaks(target, options, reference, result);
  reference.load(load_request(target.reference, target.definition, result.reference_build));

  std::size_t done = 0;
  auto report = [&](const WorkloadResult& w) {
    if (options.on_workload) options.on_workload(result, w);
    if (options.on_progress) {
      options.on_progress(
          {++done, target.workloads.size(), w.workload.uuid, std::string(status_name(w.status))});
    }
  };
  // A candidate that never gets to run has the same status on every workload.
  auto fail_all = [&](EvalStatus status, const std::string& log) {
    for (const Workload& w : target.workloads) {
      WorkloadResult r;
      r.workload = w;
      r.status = status;
      r.log = log;
      report(r);
      result.workloads.push_back(std::move(r));
    }
    return result;
  };
  if (result.candidate_build.status != BuildResult::Status::ok) {
    return fail_all(EvalStatus::compile_error, build_failure_log(result.candidate_build));
  }
  MeasurementClient candidate(worker_config(options, work_dir, "candidate", target));
  result.sandbox = candidate.isolation().to_json();
  try {
    candidate.load(load_request(target.candidate, target.definition, result.candidate_build));
  } catch (const KernelRejected& e) {
    // A Python solution that does not import: found by the worker, before any call.
    return fail_all(EvalStatus::compile_error, std::string("compile error: ") + e.what());
  } catch (const Error& e) {
    // Loading runs the candidate's global constructors, which may crash or hang.
    return fail_all(EvalStatus::runtime_error, e.what());
  }

  const std::unique_ptr<OutputChecker> checker = make_output_checker(target.checker);
  SeedStream seeds(options.seed);
  const double nominal = candidate.device().value("nominal_sm_clock_mhz", 0.0);
  const ReferenceLatencyCache latencies(
      options.cache_dir.empty() ? BuildCache::default_dir() : options.cache_dir,
      options.reference_cache_max_age);
  int streak = 0;  // consecutive fatal failures; the last of them is the last result
  std::size_t last_run = 0;
  for (const Workload& w : target.workloads) {
    if (options.max_consecutive_failures > 0 && streak >= options.max_consecutive_failures) {
      WorkloadResult r = not_run(w, result.workloads[last_run], streak);
      report(r);
      result.workloads.push_back(std::move(r));
      continue;
    }
    WorkloadContext ctx{target.definition,
                        w,
                        target.root,
                        *checker,
                        target.tolerance,
                        options,
                        nominal,
                        options.cache_reference_latency ? &latencies : nullptr,
                        reference_key(result, options),
                        is_python_language(target.candidate.spec.language)};
    WorkloadResult r = WorkloadEvaluation(ctx, candidate, reference, seeds).run();
    apply_speed_of_light(target, result, r);
    streak = r.fatal ? streak + 1 : 0;
    last_run = result.workloads.size();
    report(r);
    result.workloads.push_back(std::move(r));
  }
  return result;
}

}  // namespace kh
