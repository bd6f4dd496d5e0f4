#include "scale/job_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>

#include "error/error.h"
#include "eval/eval_options_json.h"
#include "trace/json_io.h"

namespace kh::scale {

namespace {

using json = nlohmann::ordered_json;

constexpr const char* kKind = "kharness-job";
constexpr int kVersion = 1;

json evaluation_json(const EvaluationJob& e) {
  json workloads = json::array();
  for (const Workload& w : e.target.workloads) workloads.push_back(to_json(w));
  const EvaluationTarget& t = e.target;
  return {{"label", e.label},
          {"definition", to_json(t.definition)},
          {"workloads", std::move(workloads)},
          {"root", t.root.string()},
          {"candidate", to_json(t.candidate)},
          {"reference", to_json(t.reference)},
          {"checker", t.checker},
          {"tolerance", tolerance_to_json(t.tolerance)},
          {"speed_of_light", t.speed_of_light ? speed_of_light_to_json(*t.speed_of_light) : json(nullptr)},
          {"options", options_to_json(e.options)},
          // Not part of the archived options (they decide where a latency comes from, not
          // how it is measured), but the tasks must follow them as a local run would.
          {"reference_latency_cache",
           {{"use", e.options.cache_reference_latency},
            {"remeasure", e.options.remeasure_reference},
            {"max_age_s", e.options.reference_cache_max_age.count()}}}};
}

const json& member(const json& j, const char* key, const Location& where) {
  const auto it = j.find(key);
  if (it == j.end())
    throw Error(Location{where.file, 0, where.field.empty() ? key : where.field + "." + key}, "missing");
  return *it;
}

EvaluationJob evaluation_from_json(const json& j, const Location& where) {
  auto at = [&](const char* key) { return Location{where.file, 0, where.field + "." + key}; };
  EvaluationJob e;
  e.label = member(j, "label", where).get<std::string>();
  EvaluationTarget& t = e.target;
  t.definition = read_definition(member(j, "definition", where), at("definition"));
  const json& workloads = member(j, "workloads", where);
  for (std::size_t i = 0; i < workloads.size(); ++i)
    t.workloads.push_back(read_workload(workloads[i], at(fmt::format("workloads[{}]", i).c_str())));
  t.root = member(j, "root", where).get<std::string>();
  t.candidate = read_solution(member(j, "candidate", where), at("candidate"));
  t.reference = read_solution(member(j, "reference", where), at("reference"));
  t.checker = member(j, "checker", where).get<std::string>();
  t.tolerance = tolerance_from_json(member(j, "tolerance", where));
  if (const json& sol = member(j, "speed_of_light", where); !sol.is_null())
    t.speed_of_light = parse_speed_of_light(sol, at("speed_of_light"));
  e.options = options_from_json(member(j, "options", where));
  const json& cache = member(j, "reference_latency_cache", where);
  e.options.cache_reference_latency = cache.at("use").get<bool>();
  e.options.remeasure_reference = cache.at("remeasure").get<bool>();
  e.options.reference_cache_max_age = std::chrono::seconds(cache.at("max_age_s").get<std::int64_t>());
  return e;
}

}  // namespace

std::vector<JobTask> plan_tasks(const std::vector<EvaluationJob>& jobs, std::size_t per_evaluation) {
  // Each task pays a start (kharness, two workers, CUDA, the cache): beyond what a
  // partition runs at once, more tasks only queue (bench/README.md, slurm_throughput).
  constexpr std::size_t kDefaultMaxShards = 16;
  std::vector<JobTask> tasks;
  for (std::size_t e = 0; e < jobs.size(); ++e) {
    const std::size_t n = jobs[e].target.workloads.size();
    if (n == 0)
      throw Error(fmt::format("evaluation '{}' has no workloads to deal over tasks", jobs[e].label));
    const std::size_t shards = std::min(n, per_evaluation == 0 ? kDefaultMaxShards : per_evaluation);
    const std::size_t first = tasks.size();
    for (std::size_t s = 0; s < shards; ++s) tasks.push_back(JobTask{e, {}});
    for (std::size_t i = 0; i < n; ++i) tasks[first + i % shards].workloads.push_back(i);
  }
  return tasks;
}

void write_job_file(const std::filesystem::path& path, const JobFile& job) {
  json evaluations = json::array();
  for (const EvaluationJob& e : job.evaluations) evaluations.push_back(evaluation_json(e));
  json tasks = json::array();
  for (const JobTask& t : job.tasks)
    tasks.push_back({{"evaluation", t.evaluation}, {"workloads", t.workloads}});
  const json doc = {{"kind", kKind},
                    {"version", kVersion},
                    {"cache_dir", job.cache_dir.string()},
                    {"evaluations", std::move(evaluations)},
                    {"tasks", std::move(tasks)}};
  const std::filesystem::path temporary = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary);
    out << doc.dump(1) << "\n";
    if (!out) throw Error(Location{temporary.string(), 0, ""}, "cannot write the job file");
  }
  std::filesystem::rename(temporary, path);
}

JobFile read_job_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(Location{path.string(), 0, ""}, "cannot open the job file");
  const json doc = json::parse(in, nullptr, false);
  const Location where{path.string(), 0, ""};
  if (doc.is_discarded() || !doc.is_object()) throw Error(where, "not a JSON object");
  if (doc.value("kind", std::string()) != kKind || doc.value("version", 0) != kVersion) {
    throw Error(where, fmt::format("not a {} file of version {} (a kharness of another version wrote it?)",
                                   kKind, kVersion));
  }
  JobFile job;
  try {
    job.cache_dir = doc.value("cache_dir", std::string());
    const json& evaluations = member(doc, "evaluations", where);
    for (std::size_t i = 0; i < evaluations.size(); ++i)
      job.evaluations.push_back(evaluation_from_json(
          evaluations[i], Location{path.string(), 0, fmt::format("evaluations[{}]", i)}));
    for (const json& t : member(doc, "tasks", where)) {
      job.tasks.push_back(
          JobTask{t.at("evaluation").get<std::size_t>(), t.at("workloads").get<std::vector<std::size_t>>()});
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(where, std::string("malformed job file: ") + e.what());
  }
  return job;
}

EvaluationJob task_evaluation(const JobFile& job, std::size_t task) {
  if (task >= job.tasks.size()) {
    throw Error(Location{"", 0, "--task"},
                fmt::format("task {} of a job of {} task(s)", task, job.tasks.size()));
  }
  const JobTask& t = job.tasks[task];
  if (t.evaluation >= job.evaluations.size())
    throw Error(Location{"", 0, "tasks"}, fmt::format("task {} names evaluation {}", task, t.evaluation));
  EvaluationJob e = job.evaluations[t.evaluation];
  std::vector<Workload> mine;
  for (const std::size_t i : t.workloads) {
    if (i >= e.target.workloads.size())
      throw Error(Location{"", 0, "tasks"}, fmt::format("task {} names workload {}", task, i));
    mine.push_back(e.target.workloads[i]);
  }
  e.target.workloads = std::move(mine);
  return e;
}

}  // namespace kh::scale
