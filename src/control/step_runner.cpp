#include "control/step_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <thread>
#include <utility>

#include "archive/canonical_json.h"
#include "archive/run_check.h"
#include "archive/run_traces.h"
#include "archive/run_writer.h"
#include "archive/step_runs.h"
#include "archive/utc_time.h"
#include "base/jail/isolation_probe.h"
#include "base/jail/sandbox_mode.h"
#include "control/seed_mix.h"
#include "control/stop_counter.h"
#include "error/error.h"
#include "eval/solution_build.h"
#include "eval/trace_record.h"
#include "record/recorded_evaluation.h"

namespace kh::control {

namespace {

// Whether solutions run where they cannot signal this process: the jail's own PID
// namespace, which best and strict modes give where the machine allows it.
bool candidates_contained() {
  const SandboxMode mode = sandbox_mode();
  return (mode == SandboxMode::best || mode == SandboxMode::strict) && machine_support().namespaces;
}

// Run-to-run spread of one workload's latency, relative: official, the spread of the
// trial medians; robust (one trial), half the 95% interval of the median.
double workload_noise(const nlohmann::json& latency) {
  const auto medians = latency.value("trial_medians_ms", std::vector<double>{});
  if (medians.size() >= 2) {
    const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
    double mean = 0;
    for (double m : medians) mean += m;
    mean /= static_cast<double>(medians.size());
    return mean > 0 ? (*hi - *lo) / mean : 0;
  }
  const nlohmann::json samples = latency.value("samples", nlohmann::json::object());
  const double median = samples.value("median_ms", 0.0);
  if (median <= 0) return 0;
  return (samples.value("ci95_high_ms", median) - samples.value("ci95_low_ms", median)) / 2 / median;
}

void read_speed_of_light(const nlohmann::json& j, SweepWorkload& w) {
  if (!j.is_object() || !j.contains("floor_ms") || !j["floor_ms"].is_number()) return;
  SpeedOfLight s;
  s.floor_s = j["floor_ms"].get<double>() / 1e3;
  s.bound = j.value("bound", "");
  s.intensity = j.value("arithmetic_intensity", 0.0);
  s.ridge = j.value("ridge_point", 0.0);
  w.speed_of_light = s;
  w.sol_fraction = j.value("fraction", 0.0);
}

EvaluationTarget step_target(const LoopTarget& t, const StepRequest& r) {
  EvaluationTarget target = t.base;
  target.candidate = r.solution;
  if (r.scope == StepScope::gate && !t.gate_workloads.empty()) {
    target.workloads.clear();
    for (std::size_t i : t.gate_workloads) target.workloads.push_back(t.base.workloads.at(i));
  }
  return target;
}

// The line that closes a step's "on N workload(s)" line: how many passed, their mean latency, and
// the wall time of the step (of its whole batch when the executor ran several, which it says).
std::string step_finished_line(const StepRequest& r, const SolutionEvaluation& e, double seconds,
                               std::size_t batch) {
  std::size_t passed = 0, timed = 0;
  double latency_ms = 0;
  for (const WorkloadResult& w : e.workloads) {
    if (w.status != EvalStatus::passed) continue;
    ++passed;
    if (w.latency && w.latency->latency_ms > 0) {
      ++timed;
      latency_ms += w.latency->latency_ms;
    }
  }
  const std::string mean =
      timed > 0 ? fmt::format(", mean {:.4g} ms", latency_ms / static_cast<double>(timed)) : "";
  const std::string batched = batch > 1 ? fmt::format(" (the time of a batch of {} steps)", batch) : "";
  return fmt::format("  {} {}: {}/{} passed{} in {:.1f} s{}", r.phase, r.solution.name, passed,
                     e.workloads.size(), mean, seconds, batched);
}

}  // namespace

EvalOptions step_options(const LoopTarget& target, ProtocolKind kind) {
  EvalOptions o = target.options;
  o.protocol = o.protocol.as(kind);
  return o;
}

std::string step_key(std::string_view loop_id, std::int64_t round, std::string_view phase,
                     std::string_view content_id) {
  return fmt::format("{}/r{}/{}/{}", loop_id, round, phase, content_id.substr(0, 16));
}

Sweep read_sweep(archive::Archive& archive, archive::RowId run_id) {
  Sweep sweep;
  sweep.run_id = run_id;
  archive::RunHeader header = archive::run_header(archive, run_id);
  sweep.protocol = std::move(header.protocol);
  sweep.started_at = std::move(header.started_at);
  sweep.finished_at = std::move(header.finished_at);
  for (archive::RunTraceRow& row : archive::run_trace_rows(archive, run_id)) {
    SweepWorkload w;
    w.uuid = std::move(row.workload_uuid);
    w.status = std::move(row.status);
    if (w.status == "PASSED") w.latency_ms = row.latency_ms;
    const nlohmann::json line = nlohmann::json::parse(row.line, nullptr, false);
    if (line.is_object() && line.contains("evaluation") && line["evaluation"].is_object()) {
      const nlohmann::json ours = line["evaluation"].value("kharness", nlohmann::json::object());
      if (ours.contains("latency")) w.noise = workload_noise(ours["latency"]);
      if (ours.contains("speed_of_light")) read_speed_of_light(ours["speed_of_light"], w);
    }
    sweep.workloads.push_back(std::move(w));
  }
  if (sweep.workloads.empty()) {
    throw Error(Location{archive.dir().string(), 0, "runs"}, fmt::format("run {} has no traces", run_id));
  }
  return sweep;
}

StepRunner::StepRunner(archive::Archive& archive, std::string loop_id, LoopTarget target, std::uint64_t seed,
                       std::vector<std::string> command_line,
                       std::function<void(const std::string&)> progress)
    : archive_(archive),
      loop_id_(loop_id),
      target_(std::move(target)),
      seed_(seed),
      command_line_(std::move(command_line)),
      progress_(std::move(progress)),
      marks_(archive, std::move(loop_id)) {}

Sweep StepRunner::run(const StepRequest& r) { return std::move(run_all({r}).front()); }

std::vector<Sweep> StepRunner::run_all(const std::vector<StepRequest>& requests) {
  if (!executor_) executor_ = scale::make_executor({});
  std::vector<std::optional<Sweep>> sweeps(requests.size());
  std::vector<FreshStep> todo;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    FreshStep s = fresh_step(requests[i], i);
    if (const auto id = verified_step_run(s.key)) {
      ++reused_;
      sweeps[i] = read_sweep(archive_, *id);
      sweeps[i]->reused = true;
      continue;
    }
    todo.push_back(std::move(s));
  }
  const std::size_t width = std::max<std::size_t>(1, executor_->side_by_side());
  while (!todo.empty()) {
    std::vector<FreshStep> batch;
    std::vector<FreshStep> again;
    for (FreshStep& s : todo) {
      if (const auto why = refusal(requests[s.request], s)) {
        sweeps[s.request] = record_failure(requests[s.request], s.key, *why);
      } else if (marks_.strikes(s.key) > 0 || marks_.shared_strikes(s.key) > 0) {
        // Struck before: alone, so that a death or a stop is this step's own.
        auto retry = measure(requests, {std::move(s)}, sweeps);
        again.insert(again.end(), std::make_move_iterator(retry.begin()),
                     std::make_move_iterator(retry.end()));
      } else {
        batch.push_back(std::move(s));
      }
    }
    for (std::size_t from = 0; from < batch.size(); from += width) {
      const auto end = batch.begin() + static_cast<std::ptrdiff_t>(std::min(batch.size(), from + width));
      auto retry = measure(requests,
                           {std::make_move_iterator(batch.begin() + static_cast<std::ptrdiff_t>(from)),
                            std::make_move_iterator(end)},
                           sweeps);
      again.insert(again.end(), std::make_move_iterator(retry.begin()), std::make_move_iterator(retry.end()));
    }
    todo = std::move(again);
  }
  std::vector<Sweep> out;
  out.reserve(sweeps.size());
  for (auto& s : sweeps) out.push_back(std::move(*s));
  return out;
}

StepRunner::FreshStep StepRunner::fresh_step(const StepRequest& r, std::size_t index) const {
  FreshStep s;
  s.request = index;
  s.content_id = archive::canonical_hash(r.solution_text);
  s.key = step_key(loop_id_, r.round, r.phase, s.content_id);
  s.job = {r.solution.name, step_target(target_, r), step_options(target_, r.protocol)};
  s.job.options.seed = inputs_seed(r, s.content_id);
  return s;
}

// A redone step draws the same inputs, and so do ablation arms sharing a seed scope. An
// unpaired step's seed is the one its key has always given.
std::uint64_t StepRunner::inputs_seed(const StepRequest& r, std::string_view content_id) const {
  const std::string_view scope = seed_scope_.empty() ? std::string_view(loop_id_) : seed_scope_;
  if (r.pairing.empty()) return mix_seed(seed_, step_key(scope, r.round, r.phase, content_id));
  return mix_seed(seed_, step_key(scope, r.round, "paired-" + r.pairing, ""));
}

std::optional<std::string> StepRunner::refusal(const StepRequest& r, const FreshStep& s) const {
  if (!r.start && marks_.banned().contains(s.content_id)) {
    return fmt::format(
        "banned from loop {}: the orchestrator died or was stopped {} times while it ran in one step",
        loop_id_, kStrikesToBan);
  }
  // Strikes a step survives: none for a candidate; one for a promoted best; two for the start.
  const std::size_t survives = !r.retained_best ? 0 : (r.start ? kStrikesToBan : kStrikesToBan - 1);
  if (marks_.strikes(s.key) > survives)
    return fmt::format("{}", fmt::join(marks_.strike_reasons(s.key), "; "));
  return std::nullopt;
}

std::vector<StepRunner::FreshStep> StepRunner::measure(const std::vector<StepRequest>& requests,
                                                       std::vector<FreshStep> batch,
                                                       std::vector<std::optional<Sweep>>& sweeps) {
  std::vector<scale::EvaluationJob> jobs;
  for (const FreshStep& s : batch) {
    const StepRequest& r = requests[s.request];
    if (progress_) {
      progress_(fmt::format(
          "  {} {} on {} workload(s), {}{}", r.phase, r.solution.name, s.job.target.workloads.size(),
          s.job.options.protocol.name(),
          marks_.strikes(s.key) + marks_.shared_strikes(s.key) > 0 ? " (again, after a strike)" : ""));
    }
    marks_.begin(s.key, s.content_id, r.retained_best, batch.size(), candidates_contained());
    jobs.push_back(s.job);
  }
  const std::uint64_t stops = times_stopped();
  const std::string started_at = archive::utc_now();
  const auto began = std::chrono::steady_clock::now();
  const std::vector<SolutionEvaluation> results = executor_->run(std::move(jobs));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (times_stopped() != stops) {
    // Their timings span the stop, and a frozen orchestrator enforces no time limit.
    for (const FreshStep& s : batch)
      marks_.strike(s.key, "the orchestrator was stopped and continued while this solution ran");
    return batch;
  }
  for (std::size_t k = 0; k < batch.size(); ++k) {
    const FreshStep& s = batch[k];
    compute_capability_ = results[k].device.value("compute_capability", 0);
    ++measured_;
    if (progress_) progress_(step_finished_line(requests[s.request], results[k], seconds, batch.size()));
    sweeps[s.request] =
        record(requests[s.request], s.key, s.job.target, s.job.options, results[k], started_at);
  }
  return {};
}

std::optional<archive::RowId> StepRunner::verified_step_run(const std::string& key) {
  for (const archive::RowId id : archive::find_step_runs(archive_, key)) {
    const std::vector<std::string> problems = archive::run_problems(archive_.db(), id);
    if (problems.empty()) return id;
    tampered_.push_back(fmt::format("step {}: run {} was edited after it was recorded ({}); measured again",
                                    key, id, problems.front()));
    if (progress_) progress_("  " + tampered_.back());
  }
  return std::nullopt;
}

Sweep StepRunner::record(const StepRequest& r, const std::string& key, const EvaluationTarget& target,
                         const EvalOptions& options, const SolutionEvaluation& result,
                         std::string started_at) {
  record::EvaluationContext context;
  context.started_at = std::move(started_at);
  context.candidate_json = r.solution_text;
  context.candidate_role = r.role;
  context.lineage = r.lineage;
  context.origin = "controller";
  context.command_line = command_line_;
  archive::append_step_key(context.command_line, key);
  const archive::WrittenRun written =
      record::record_evaluation(archive_, target, result, options,
                                record::evaluation_traces(target, result, options), std::move(context));
  marks_.end(key);
  return read_sweep(archive_, written.run_id);
}

Sweep StepRunner::record_failure(const StepRequest& r, const std::string& key, const std::string& why) {
  const EvaluationTarget target = step_target(target_, r);
  EvalOptions options = step_options(target_, r.protocol);
  options.seed = inputs_seed(r, archive::canonical_hash(r.solution_text));
  // A fixed word first, for scripts and people scanning logs.
  const std::string log =
      std::string(why.find("died") != std::string::npos ? "ORCHESTRATOR_DIED" : "ORCHESTRATOR_STOPPED") +
      ": recorded as failed without running it again: " + why;
  if (progress_) progress_(fmt::format("  {} {}: recorded as failed ({})", r.phase, r.solution.name, why));
  SolutionEvaluation result;
  result.device = nlohmann::ordered_json::object();  // no worker ran: nothing reported
  for (BuildResult* b : {&result.candidate_build, &result.reference_build}) {
    b->status = BuildResult::Status::ok;  // not built again: the failure is the step's, not the build's
    b->message = "not built for this step: " + log;
  }
  for (const Workload& w : target.workloads) {
    WorkloadResult failed;
    failed.workload = w;
    failed.status = EvalStatus::runtime_error;
    failed.log = log;
    result.workloads.push_back(std::move(failed));
  }
  return record(r, key, target, options, result, archive::utc_now());
}

std::size_t StepRunner::prebuild(const std::vector<Solution>& solutions) {
  // Half the cores, two at least: nvcc runs threads of its own, and the compilers mostly
  // wait on disk and on each other's front ends.
  const std::size_t cores = std::max(2u, std::thread::hardware_concurrency() / 2);
  const int jobs = static_cast<int>(std::min(solutions.size(), cores));
  // Only for evaluations here: Slurm tasks build on their nodes, for their GPUs.
  if (!compute_capability_ || jobs < 2 || (executor_ && executor_->name() != "local")) return 0;
  const BuildSettings settings = evaluation_build_settings(target_.options, *compute_capability_);
  const std::vector<BuildResult> built = build_solutions(evaluation_build_cache(target_.options), solutions,
                                                         target_.base.definition, settings, jobs);
  return built.size();
}

}  // namespace kh::control
