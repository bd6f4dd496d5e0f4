#include "scale/eval_task.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "device/device_lane.h"
#include "error/error.h"
#include "eval/evaluation_json.h"
#include "eval/trace_record.h"
#include "scale/job_file.h"
#include "trace/json_io.h"

namespace kh::scale {

namespace {

using json = nlohmann::ordered_json;

void write_atomically(const std::filesystem::path& path, const json& doc) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary);
    out << doc.dump() << "\n";
    out.flush();
    if (!out) throw Error(Location{temporary.string(), 0, ""}, "cannot write");
  }
  std::filesystem::rename(temporary, path);
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

// Where and as what Slurm ran this task, for the report and the failure messages.
json placement() {
  char host[256] = {};
  (void)gethostname(host, sizeof host - 1);
  return {{"host", host},
          {"slurm_job_id", env_or("SLURM_JOB_ID", "")},
          {"slurm_array_job_id", env_or("SLURM_ARRAY_JOB_ID", "")},
          {"slurm_array_task_id", env_or("SLURM_ARRAY_TASK_ID", "")},
          {"slurm_restart_count", env_or("SLURM_RESTART_COUNT", "0")},
          {"cuda_visible_devices", env_or("CUDA_VISIBLE_DEVICES", "")}};
}

int evaluate_task(const EvalTaskRequest& r, const std::filesystem::path& traces_path) {
  const auto t0 = std::chrono::steady_clock::now();
  const JobFile job = read_job_file(r.job);
  EvaluationJob e = task_evaluation(job, r.task);
  e.options.cache_dir = job.cache_dir;
  if (e.options.backend == "cuda" && !r.gpus.empty()) e.options.lanes = device_lanes("cuda", r.gpus);
  std::ofstream traces(traces_path, std::ios::trunc);
  std::size_t done = 0;
  e.options.on_workload = [&](const SolutionEvaluation& so_far, const WorkloadResult& w) {
    traces << write_trace_line(make_trace(e.target, so_far, w, e.options)) << "\n";
    traces.flush();
    fmt::print(stderr, "kharness task {}: {}/{} {} {}\n", r.task, ++done, e.target.workloads.size(),
               w.workload.uuid, status_name(w.status));
  };
  fmt::print(stderr, "kharness task {}: {} on {} workload(s) of {}, {} backend\n", r.task, e.label,
             e.target.workloads.size(), e.target.definition.name, e.options.backend);
  const SolutionEvaluation result = evaluate_solution(e.target, e.options);
  json doc = {{"task", r.task},
              {"placement", placement()},
              {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()},
              {"evaluation", evaluation_to_json(result)}};
  write_atomically(r.out_dir / kTaskResult, doc);
  return 0;
}

}  // namespace

int run_eval_task(const EvalTaskRequest& r) {
  // A requeued or repeated attempt starts clean: nothing of an earlier one may be
  // mistaken for this one's result.
  std::filesystem::create_directories(r.out_dir);
  for (const char* name : {kTaskResult, kTaskFailure, kTaskTraces}) std::filesystem::remove(r.out_dir / name);
  try {
    return evaluate_task(r, r.out_dir / kTaskTraces);
  } catch (const Error& e) {
    write_atomically(r.out_dir / kTaskFailure,
                     {{"task", r.task}, {"placement", placement()}, {"error", e.what()}});
    throw;
  } catch (const std::exception& e) {  // the file system's own failures, say
    write_atomically(r.out_dir / kTaskFailure,
                     {{"task", r.task}, {"placement", placement()}, {"error", e.what()}});
    throw Error(Location{r.job.string(), 0, fmt::format("tasks[{}]", r.task)}, e.what());
  }
}

}  // namespace kh::scale
