// The merge: one SolutionEvaluation per job, from the results its tasks left on the
// shared folder, in the job's workload order, as evaluate_solution would have returned
// it. The first task's builds, device and peaks head the evaluation; every task's lanes
// are kept, so each workload still names the GPU (and node) it ran on. A workload whose
// task ran out of attempts is RUNTIME_ERROR, its log naming the task and every reason.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "scale/executor.h"
#include "scale/job_file.h"

namespace kh::scale {

struct TaskOutcome {
  std::optional<nlohmann::ordered_json> evaluation;  // result.json's "evaluation", when done
  std::string host;                                  // where it ran
  std::string failure;                               // when it failed: every attempt's reason
};

// `outcomes` has one entry per task of `tasks`. Throws kh::Error for a job none of whose
// tasks left a result (there is nothing to record: no build, no device), or a result
// that does not parse, naming the task.
[[nodiscard]] std::vector<SolutionEvaluation> merge_task_results(const std::vector<EvaluationJob>& jobs,
                                                                 const std::vector<JobTask>& tasks,
                                                                 const std::vector<TaskOutcome>& outcomes);

}  // namespace kh::scale
