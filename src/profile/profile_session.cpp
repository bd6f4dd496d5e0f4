#include "profile/profile_session.h"

#include <fmt/format.h>

#include <chrono>
#include <map>

#include "eval/workload_shapes.h"

namespace kh::profile {

namespace {

bool any_memory_bound(const std::vector<WorkloadResult>& results) {
  for (const WorkloadResult& r : results) {
    if (r.speed_of_light && r.speed_of_light->bound == "memory") return true;
  }
  return false;
}

void tell(const ProfileRequest& request, const std::string& line) {
  if (request.on_step) request.on_step(line);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

NcuRequest ncu_request(const ProfileRequest& request, std::vector<std::string> uuids,
                       const std::filesystem::path& dir) {
  // ncu's start and its replay passes dominate, not the workloads: a minute a workload.
  const auto limit = std::chrono::seconds(120 + 60 * static_cast<long>(uuids.size()));
  return NcuRequest{
      request.kharness, request.target.definition.name, request.solution_file, request.trace_set,
      std::move(uuids), dir, limit,
      // ncu's session runs on the first of the profile's GPUs.
      request.options.lanes.empty() ? std::string() : std::to_string(request.options.lanes[0].index)};
}

// A session that never started (no ncu) leaves nothing to keep.
void keep_session(ProfileReport& report, const NcuRequest& request, const NcuRun& run) {
  if (run.command.empty()) return;
  report.ncu_runs.push_back({request.workloads, request.work_dir, run.kernels.size(), run.seconds, run.note});
}

}  // namespace

// Model bytes plus FLOPs at an intensity of 100 (a typical ridge) plus a launch's worth
// of bytes: a device-free cost that orders workloads as their floors would.
RegimePlan plan_regimes(const EvaluationTarget& t) {
  if (!t.speed_of_light) {
    return discover_regimes(t.definition, t.workloads, var_axes_product(t.definition, t.workloads),
                            "the product of the var axes");
  }
  std::vector<double> costs;
  for (const Workload& w : t.workloads) {
    const WorkloadWork work = evaluate_work(*t.speed_of_light, resolve_axes(t.definition, w));
    costs.push_back(work.bytes + work.flops / 100 + 2e6);
  }
  return discover_regimes(t.definition, t.workloads, costs,
                          "the speed-of-light model (bytes + flops/100 + a launch)");
}

EvaluationTarget representatives_target(const EvaluationTarget& target, const RegimePlan& plan) {
  EvaluationTarget quick = target;
  quick.workloads.clear();
  for (const Regime& r : plan.regimes)
    quick.workloads.push_back(target.workloads.at(r.representatives.front()));
  return quick;
}

// One ncu session for every representative: each start of ncu, kharness and its workers
// costs seconds.
void attach_ncu_metrics(const ProfileRequest& request, ProfileReport& report) {
  std::vector<std::string> uuids;
  for (const RegimeProfile& rp : report.regimes) uuids.push_back(rp.result.workload.uuid);
  const NcuRequest joint_request = ncu_request(request, uuids, request.out_dir / "ncu");
  tell(request,
       fmt::format("ncu: one session over {} representative(s), at most {} s (log: {})", uuids.size(),
                   joint_request.timeout.count(), (joint_request.work_dir / "ncu.log").string()));
  const NcuRun joint = run_ncu(joint_request);
  keep_session(report, joint_request, joint);
  tell(request, joint.kernels.empty() ? fmt::format("ncu: no launch profiled: {}", joint.note)
                                      : fmt::format("ncu: {} launch(es) profiled in {:.1f} s",
                                                    joint.kernels.size(), joint.seconds));
  for (std::size_t i = 0; i < report.regimes.size(); ++i) {
    RegimeProfile& rp = report.regimes[i];
    rp.evidence.kernels = kernels_of_workload(joint.kernels, uuids[i]);
    if (!rp.evidence.kernels.empty()) continue;
    if (joint.kernels.empty()) {
      rp.ncu_note = joint.note;
      continue;
    }
    tell(request,
         fmt::format("ncu: regime {} had no launch in that session; profiling it alone", rp.regime.name));
    const NcuRequest alone_request =
        ncu_request(request, {uuids[i]}, request.out_dir / fmt::format("ncu-{}", i));
    const NcuRun alone = run_ncu(alone_request);
    keep_session(report, alone_request, alone);
    rp.evidence.kernels = alone.kernels;
    rp.ncu_note = alone.kernels.empty() ? alone.note : "";
  }
}

ProfileReport run_profile(const ProfileRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  ProfileReport report;
  report.definition = request.target.definition.name;
  report.solution = request.target.candidate.name;
  report.plan = plan_regimes(request.target);
  for (const Workload& w : request.target.workloads) report.workload_uuids.push_back(w.uuid);

  const EvaluationTarget quick = representatives_target(request.target, report.plan);
  tell(request, fmt::format("{} regime(s) over {} workload(s); evaluating one representative of each",
                            report.plan.regimes.size(), request.target.workloads.size()));
  EvalOptions options = request.options;
  options.on_progress = [&](const EvalProgress& p) {
    tell(request, fmt::format("evaluated {}/{}: regime {}, workload {}: {}", p.done, p.total,
                              report.plan.regimes.at(p.done - 1).name, p.workload.substr(0, 8), p.status));
    if (request.options.on_progress) request.options.on_progress(p);
  };
  report.evaluation = evaluate_solution(quick, options);
  const SolutionEvaluation& eval = report.evaluation;
  report.device = eval.device;
  report.evaluation_seconds = seconds_since(started);

  const bool cuda = request.options.backend == "cuda";
  if (cuda && eval.candidate_build.status == BuildResult::Status::ok) {
    StaticContext context;
    if (request.target.speed_of_light) context.compute = request.target.speed_of_light->compute;
    context.memory_bound = any_memory_bound(eval.workloads);
    report.static_report = analyse_binary(eval.candidate_build.library, eval.candidate_build.log, context);
    report.static_analysed = true;
    tell(request, fmt::format("static analysis: {} kernel(s), {} warning(s)",
                              report.static_report.resources.size(), report.static_report.warnings.size()));
  }
  for (std::size_t i = 0; i < report.plan.regimes.size(); ++i) {
    RegimeProfile rp;
    rp.regime = report.plan.regimes[i];
    rp.result = eval.workloads.at(i);
    rp.evidence.regime = rp.regime.name;
    if (rp.result.latency) rp.evidence.latency_ms = rp.result.latency->latency_ms;
    rp.evidence.speed_of_light = rp.result.speed_of_light;
    rp.evidence.sol_fraction = rp.result.speed_of_light_fraction();
    rp.evidence.static_warnings = report.static_report.warnings;
    if (!cuda) rp.ncu_note = "CPU backend: no hardware profile";
    if (cuda && (!request.use_ncu || request.solution_file.empty())) rp.ncu_note = "ncu not requested";
    report.regimes.push_back(std::move(rp));
  }
  if (cuda && request.use_ncu && !request.solution_file.empty()) attach_ncu_metrics(request, report);
  for (RegimeProfile& rp : report.regimes) rp.diagnosis = diagnose(rp.evidence);
  report.seconds = seconds_since(started);
  return report;
}

}  // namespace kh::profile
