// The job file of a distributed batch: every evaluation (definition, workloads, both
// solutions, checker, tolerance, speed-of-light model, options with the pinned seed)
// and every task (an evaluation and the workloads it evaluates). The submitter writes it
// once on the shared folder; each Slurm task reads it and runs its own share, so a task
// needs nothing from the submitter's machine but that folder.
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

#include "scale/executor.h"

namespace kh::scale {

struct JobTask {
  std::size_t evaluation = 0;          // index into JobFile::evaluations
  std::vector<std::size_t> workloads;  // indices into that evaluation's workloads, in order
};

struct JobFile {
  std::vector<EvaluationJob> evaluations;  // callbacks and local paths are not written
  std::vector<JobTask> tasks;
  std::filesystem::path cache_dir;  // the tasks' build and peaks cache
};

// Workload i of each evaluation goes to task (i mod shards): shards of mixed sizes, so
// that no task gets all the large workloads of a sorted list. `per_evaluation` 0: one
// task per workload, at most 16. Throws kh::Error for an evaluation without workloads.
[[nodiscard]] std::vector<JobTask> plan_tasks(const std::vector<EvaluationJob>& jobs,
                                              std::size_t per_evaluation);

// Written to a temporary file and renamed, so a task never reads half a job.
void write_job_file(const std::filesystem::path& path, const JobFile& job);
// Throws kh::Error naming the file and the field when it cannot be read.
[[nodiscard]] JobFile read_job_file(const std::filesystem::path& path);

// Task `task`'s evaluation, cut down to its workloads. Throws kh::Error when there is no
// such task.
[[nodiscard]] EvaluationJob task_evaluation(const JobFile& job, std::size_t task);

}  // namespace kh::scale
