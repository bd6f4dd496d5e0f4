// Executor: where a batch of evaluations runs. `local` evaluates them in this process's
// workers, over the device lanes of `--gpus`; `slurm` submits them to a Slurm cluster as
// one job array, a task per shard of workloads, and merges what the tasks leave on a
// shared folder. Either way the caller gets back one SolutionEvaluation per job, in job
// order, exactly as evaluate_solution would have returned it, and is the one writer of
// its archive.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "device/device_lane.h"
#include "eval/evaluator.h"
#include "scale/slurm_settings.h"

namespace kh::scale {

// One evaluation to run: a solution on its workloads, with its options. The options'
// seed is pinned by the executor when unset, so that every shard of the job draws from
// the same base.
struct EvaluationJob {
  std::string label;  // for progress lines and reports, e.g. the solution's name
  EvaluationTarget target;
  EvalOptions options;
};

// Where a distributed batch stands, for a progress bar.
struct TaskCounts {
  std::size_t total = 0;
  std::size_t queued = 0;  // submitted, waiting for a node
  std::size_t running = 0;
  std::size_t done = 0;     // results on the shared folder
  std::size_t failed = 0;   // out of attempts
  std::size_t retries = 0;  // resubmissions so far
};

class Executor {
 public:
  virtual ~Executor() = default;
  Executor() = default;
  Executor(const Executor&) = delete;  // may own submitted jobs
  Executor& operator=(const Executor&) = delete;

  [[nodiscard]] virtual std::string_view name() const = 0;
  // How many jobs of one run() are evaluated at the same time; a caller that records as
  // results come (the loop) hands over no more than this at once.
  [[nodiscard]] virtual std::size_t side_by_side() const = 0;
  // Evaluates every job; results in job order. Throws kh::Error for failures of the
  // harness (no device, the reference does not build, the scheduler refuses the jobs, a
  // job of which no shard could be evaluated). A candidate's failures are statuses.
  [[nodiscard]] virtual std::vector<SolutionEvaluation> run(std::vector<EvaluationJob> jobs) = 0;
  // What the last run did (tasks, attempts, nodes, job ids), for --json; null when there
  // is nothing to say beyond the evaluations.
  [[nodiscard]] virtual nlohmann::ordered_json report() const { return nullptr; }
};

struct ExecutorSettings {
  std::string name = "local";
  std::vector<DeviceLane> lanes;  // local: the lanes jobs are dealt over (empty: the default device)
  SlurmSettings slurm;            // slurm: the cluster and the shared folder
  std::function<void(const TaskCounts&)> on_tasks;  // slurm: told on every change
};

// Throws kh::Error naming the executor when it is unknown.
[[nodiscard]] std::unique_ptr<Executor> make_executor(const ExecutorSettings& settings);
[[nodiscard]] std::vector<std::string> executor_names();

}  // namespace kh::scale
