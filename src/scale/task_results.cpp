#include "scale/task_results.h"

#include <fmt/format.h>

#include <cstdint>

#include "error/error.h"
#include "eval/evaluation_json.h"

namespace kh::scale {

namespace {

// The workloads of task t's share, in its order.
std::vector<Workload> share(const EvaluationJob& job, const JobTask& t) {
  std::vector<Workload> out;
  for (const std::size_t i : t.workloads) out.push_back(job.target.workloads.at(i));
  return out;
}

SolutionEvaluation parse_task(const nlohmann::ordered_json& evaluation, const EvaluationJob& job,
                              const JobTask& t, std::size_t index) {
  try {
    return evaluation_from_json(evaluation, share(job, t));
  } catch (const Error& e) {
    throw Error(Location{"", 0, fmt::format("task {}", index)},
                std::string("unreadable result: ") + e.what());
  }
}

WorkloadResult not_evaluated(const Workload& w, std::size_t task, const std::string& failure) {
  WorkloadResult r;
  r.workload = w;
  r.status = EvalStatus::runtime_error;
  r.log = fmt::format("not evaluated: Slurm task {} ran out of attempts: {}", task, failure);
  r.lane = SIZE_MAX;  // ran nowhere: traces fall back to the evaluation's device
  return r;
}

SolutionEvaluation merge_job(std::size_t e, const EvaluationJob& job, const std::vector<JobTask>& tasks,
                             const std::vector<TaskOutcome>& outcomes) {
  SolutionEvaluation merged;
  std::vector<std::optional<WorkloadResult>> placed(job.target.workloads.size());
  bool headed = false;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const JobTask& t = tasks[i];
    if (t.evaluation != e) continue;
    const TaskOutcome& o = outcomes.at(i);
    if (!o.evaluation) {
      for (const std::size_t k : t.workloads)
        placed.at(k) = not_evaluated(job.target.workloads[k], i, o.failure);
      continue;
    }
    SolutionEvaluation part = parse_task(*o.evaluation, job, t, i);
    if (!headed) {
      merged.candidate_build = part.candidate_build;
      merged.reference_build = part.reference_build;
      merged.device = part.device;
      merged.compiler = part.compiler;
      merged.peaks = part.peaks;
      merged.peaks_note = part.peaks_note;
      merged.sandbox = part.sandbox;  // the first task's, as a local run records its first lane's
      headed = true;
    }
    const std::size_t offset = merged.lanes.size();
    for (LaneDevice& lane : part.lanes) {
      if (!o.host.empty()) lane.device["host"] = o.host;
      merged.lanes.push_back(std::move(lane));
    }
    for (std::size_t k = 0; k < t.workloads.size(); ++k) {
      WorkloadResult& r = part.workloads.at(k);
      r.lane += offset;
      placed.at(t.workloads[k]) = std::move(r);
    }
  }
  if (!headed) {
    std::string why;
    for (std::size_t i = 0; i < tasks.size(); ++i)
      if (tasks[i].evaluation == e) why += fmt::format("\n  task {}: {}", i, outcomes.at(i).failure);
    throw Error(fmt::format("evaluation '{}': no Slurm task left a result{}", job.label, why));
  }
  for (auto& r : placed) merged.workloads.push_back(std::move(*r));
  return merged;
}

}  // namespace

std::vector<SolutionEvaluation> merge_task_results(const std::vector<EvaluationJob>& jobs,
                                                   const std::vector<JobTask>& tasks,
                                                   const std::vector<TaskOutcome>& outcomes) {
  std::vector<SolutionEvaluation> out;
  out.reserve(jobs.size());
  for (std::size_t e = 0; e < jobs.size(); ++e) out.push_back(merge_job(e, jobs[e], tasks, outcomes));
  return out;
}

}  // namespace kh::scale
