#include "eval/evaluator.h"

#include <fmt/format.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <mutex>
#include <span>

#include "compile/build_cache.h"
#include "compile/include_dir.h"
#include "compile/toolchain.h"
#include "error/error.h"
#include "eval/lane_pool.h"
#include "eval/lane_workers.h"
#include "eval/scratch_dir.h"
#include "eval/solution_build.h"
#include "eval/workload_evaluation.h"
#include "tensor/fast_hash.h"

namespace kh {

namespace {

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

// Every workload with the same status and log: a candidate that did not build, or did
// not load.
void fail_every_workload(const EvaluationTarget& target, EvalStatus status, const std::string& log,
                         const std::function<void(const WorkloadResult&)>& report,
                         SolutionEvaluation& result) {
  for (const Workload& w : target.workloads) {
    WorkloadResult r;
    r.workload = w;
    r.status = status;
    r.log = log;
    report(r);
    result.workloads.push_back(std::move(r));
  }
}

// A workload's own seed stream: the base mixed with its uuid, so the workload draws the
// same seeds whichever lane, subset or Slurm task evaluates it.
SeedStream workload_seeds(std::uint64_t base, const Workload& w) {
  return SeedStream(hash_bytes(std::as_bytes(std::span(w.uuid.data(), w.uuid.size())), base));
}

// The reference workers of every lane, started side by side, each on its lane's thread;
// the first lane's device picks the nvcc arch, so every lane must be able to run that build.
std::vector<std::unique_ptr<LaneWorkers>> start_lanes(LanePool& pool, const EvaluationTarget& target,
                                                      const EvalOptions& options,
                                                      const std::vector<DeviceLane>& lanes,
                                                      const std::filesystem::path& work_dir) {
  std::vector<std::unique_ptr<LaneWorkers>> out(lanes.size());
  pool.each([&](std::size_t i) {
    out[i] = std::make_unique<LaneWorkers>(target, options, lanes[i],
                                           i == 0 ? work_dir : work_dir / fmt::format("lane{}", i));
  });
  const int cc = out[0]->device().device.value("compute_capability", 0);
  for (std::size_t i = 1; i < out.size(); ++i) {
    const auto& d = out[i]->device().device;
    if (d.value("compute_capability", 0) != cc) {
      throw Error(
          Location{"", 0, "--gpus"},
          fmt::format("device {} ({}, compute capability {}) differs from device {} ({}, {}): one "
                      "evaluation's lanes must run the same build",
                      lanes[i].index, d.value("name", std::string("?")), d.value("compute_capability", 0),
                      lanes[0].index, out[0]->device().device.value("name", std::string("?")), cc));
    }
  }
  return out;
}

}  // namespace

bool SolutionEvaluation::all_passed() const {
  if (workloads.empty()) return false;
  for (const auto& w : workloads) {
    if (w.status != EvalStatus::passed) return false;
  }
  return true;
}

const nlohmann::ordered_json& SolutionEvaluation::device_of(const WorkloadResult& w) const {
  return w.lane < lanes.size() ? lanes[w.lane].device : device;
}

const std::optional<DevicePeaks>& SolutionEvaluation::peaks_of(const WorkloadResult& w) const {
  return w.lane < lanes.size() ? lanes[w.lane].peaks : peaks;
}

SolutionEvaluation evaluate_solution(const EvaluationTarget& target, const EvalOptions& options) {
  SolutionEvaluation result;
  const ScratchDir scratch(options.work_dir);
  std::vector<DeviceLane> lanes = evaluation_lanes(options);
  // One stream through every workload in order cannot be dealt over lanes.
  if (options.seed_scheme == SeedScheme::sequential) lanes.resize(1);
  // Each lane's workers live on the lane's thread (declared first, joined last).
  LanePool pool(lanes.size());
  // The reference workers start first: their device reports pick the nvcc arch.
  std::vector<std::unique_ptr<LaneWorkers>> workers =
      start_lanes(pool, target, options, lanes, scratch.path());
  result.device = workers[0]->device().device;
  result.sandbox = workers[0]->sandbox();
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
  pool.each([&](std::size_t i) { workers[i]->prepare_reference(target, result.reference_build); });
  for (const auto& w : workers) result.lanes.push_back(w->device());
  result.peaks = result.lanes[0].peaks;
  result.peaks_note = result.lanes[0].peaks_note;

  std::mutex report_mutex;  // lanes finish workloads concurrently; callers see one at a time
  std::size_t done = 0;
  auto report = [&](const WorkloadResult& w) {
    if (options.on_workload) options.on_workload(result, w);
    if (options.on_progress) {
      options.on_progress(
          {++done, target.workloads.size(), w.workload.uuid, std::string(status_name(w.status))});
    }
  };
  if (result.candidate_build.status != BuildResult::Status::ok) {
    fail_every_workload(target, EvalStatus::compile_error, build_failure_log(result.candidate_build), report,
                        result);
    return result;
  }
  std::vector<std::optional<CandidateLoadFailure>> load_failures(workers.size());
  pool.each(
      [&](std::size_t i) { load_failures[i] = workers[i]->start_candidate(target, result.candidate_build); });
  result.sandbox = workers[0]->sandbox();
  for (const auto& failure : load_failures) {
    if (failure) {
      fail_every_workload(target, failure->status, failure->log, report, result);
      return result;
    }
  }

  std::optional<SeedStream> shared_seeds;
  std::uint64_t base = 0;
  if (options.seed_scheme == SeedScheme::sequential) {
    shared_seeds.emplace(options.seed);
  } else {
    base = options.seed ? *options.seed : SeedStream(std::nullopt).next();
  }
  std::vector<std::optional<WorkloadResult>> results(target.workloads.size());
  pool.deal(target.workloads.size(), [&](std::size_t lane, std::size_t i) {
    const Workload& w = target.workloads[i];
    std::optional<SeedStream> own;
    if (!shared_seeds) own.emplace(workload_seeds(base, w));
    WorkloadResult r = workers[lane]->evaluate(target, w, shared_seeds ? *shared_seeds : *own);
    r.lane = lane;
    const std::lock_guard lock(report_mutex);
    report(r);
    results[i] = std::move(r);
  });
  for (auto& r : results) result.workloads.push_back(std::move(*r));
  return result;
}

}  // namespace kh
