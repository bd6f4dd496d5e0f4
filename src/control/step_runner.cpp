#include "control/step_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>
#include <utility>

#include "archive/canonical_json.h"
#include "archive/evaluation_record.h"
#include "archive/run_writer.h"
#include "archive/utc_time.h"
#include "control/seed_mix.h"
#include "error/error.h"
#include "eval/solution_build.h"
#include "eval/trace_record.h"

namespace kh::control {

namespace {

// The key is the last element of the run's command line: `..., "--step", "<key>"]`.
std::string command_line_suffix(std::string_view key) {
  return nlohmann::json::array({"--step", std::string(key)}).dump().substr(1);
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

}  // namespace

std::string step_key(std::string_view loop_id, std::int64_t round, std::string_view phase,
                     std::string_view content_id) {
  return fmt::format("{}/r{}/{}/{}", loop_id, round, phase, content_id.substr(0, 16));
}

std::optional<archive::RowId> find_step_run(archive::Archive& archive, std::string_view key) {
  const std::string suffix = command_line_suffix(key);
  archive::Statement s = archive.db().prepare(
      "SELECT id FROM runs WHERE origin = 'controller' AND substr(command_line_json, -length(?1)) = ?1 "
      "ORDER BY id LIMIT 1");
  s.bind(1, suffix);
  if (!s.step()) return std::nullopt;
  return s.column_int(0);
}

std::int64_t count_step_runs(archive::Archive& archive, std::string_view loop_id) {
  // Keys start with the loop id and a slash: `"--step","<loop>/r`.
  const std::string prefix = nlohmann::json(std::string(loop_id) + "/r").dump();
  archive::Statement s = archive.db().prepare(
      "SELECT count(*) FROM runs WHERE origin = 'controller' AND instr(command_line_json, ?1) > 0");
  s.bind(1, "\"--step\"," + prefix.substr(0, prefix.size() - 1));
  s.step();
  return s.column_int(0);
}

Sweep read_sweep(archive::Archive& archive, archive::RowId run_id) {
  Sweep sweep;
  sweep.run_id = run_id;
  archive::Statement p = archive.db().prepare("SELECT protocol FROM runs WHERE id = ?");
  p.bind(1, run_id);
  if (p.step()) sweep.protocol = p.column_text(0);
  archive::Statement s = archive.db().prepare(
      "SELECT workload_uuid, status, latency_ms, line FROM traces WHERE run_id = ? ORDER BY id");
  s.bind(1, run_id);
  while (s.step()) {
    SweepWorkload w;
    w.uuid = s.column_text(0);
    w.status = s.column_text(1);
    if (w.status == "PASSED") w.latency_ms = s.column_optional_double(2);
    const nlohmann::json line = nlohmann::json::parse(s.column_text(3), nullptr, false);
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
      loop_id_(std::move(loop_id)),
      target_(std::move(target)),
      seed_(seed),
      command_line_(std::move(command_line)),
      progress_(std::move(progress)) {}

Sweep StepRunner::run(const StepRequest& r) { return std::move(run_all({r}).front()); }

std::vector<Sweep> StepRunner::run_all(const std::vector<StepRequest>& requests) {
  struct Fresh {
    std::size_t request;
    std::string key;
    archive::EvaluationContext context;
  };
  std::vector<std::optional<Sweep>> sweeps(requests.size());
  std::vector<Fresh> fresh;
  std::vector<scale::EvaluationJob> jobs;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const StepRequest& r = requests[i];
    const std::string key = step_key(loop_id_, r.round, r.phase, archive::canonical_hash(r.solution_text));
    if (const auto id = find_step_run(archive_, key)) {
      ++reused_;
      sweeps[i] = read_sweep(archive_, *id);
      sweeps[i]->reused = true;
      continue;
    }
    scale::EvaluationJob job{r.solution.name, step_target(target_, r),
                             r.protocol == TimingProtocol::official ? target_.official : target_.robust};
    job.options.seed = mix_seed(seed_, key);  // a redone step draws the same inputs
    if (progress_) {
      progress_(fmt::format("  {} {} on {} workload(s), {}", r.phase, r.solution.name,
                            job.target.workloads.size(), protocol_name(job.options.protocol)));
    }
    archive::EvaluationContext context;
    context.started_at = archive::utc_now();
    fresh.push_back({i, key, std::move(context)});
    jobs.push_back(std::move(job));
  }
  if (!jobs.empty()) {
    if (!executor_) executor_ = scale::make_executor({});
    const std::vector<SolutionEvaluation> results = executor_->run(jobs);
    for (std::size_t k = 0; k < fresh.size(); ++k)
      sweeps[fresh[k].request] =
          record(requests[fresh[k].request], jobs[k], results[k], fresh[k].key, fresh[k].context);
  }
  std::vector<Sweep> out;
  out.reserve(sweeps.size());
  for (auto& s : sweeps) out.push_back(std::move(*s));
  return out;
}

Sweep StepRunner::record(const StepRequest& r, const scale::EvaluationJob& job,
                         const SolutionEvaluation& result, const std::string& key,
                         archive::EvaluationContext context) {
  compute_capability_ = result.device.value("compute_capability", 0);
  std::vector<Trace> traces;
  for (const WorkloadResult& w : result.workloads)
    traces.push_back(make_trace(job.target, result, w, job.options, {}));
  context.candidate_json = r.solution_text;
  context.candidate_role = r.role;
  context.lineage = r.lineage;
  context.origin = "controller";
  context.command_line = command_line_;
  context.command_line.insert(context.command_line.end(), {"--step", key});
  context.finished_at = archive::utc_now();
  const archive::WrittenRun written = archive::write_run(
      archive_, archive::evaluation_record(job.target, result, job.options, traces, context));
  ++measured_;
  return read_sweep(archive_, written.run_id);
}

std::size_t StepRunner::prebuild(const std::vector<Solution>& solutions) {
  // Half the cores, two at least: nvcc runs threads of its own, and the compilers mostly
  // wait on disk and on each other's front ends.
  const std::size_t cores = std::max(2u, std::thread::hardware_concurrency() / 2);
  const int jobs = static_cast<int>(std::min(solutions.size(), cores));
  // Only for evaluations here: Slurm tasks build on their nodes, for their GPUs.
  if (!compute_capability_ || jobs < 2 || (executor_ && executor_->name() != "local")) return 0;
  const BuildSettings settings = evaluation_build_settings(target_.official, *compute_capability_);
  const std::vector<BuildResult> built = build_solutions(evaluation_build_cache(target_.official), solutions,
                                                         target_.base.definition, settings, jobs);
  return built.size();
}

}  // namespace kh::control
