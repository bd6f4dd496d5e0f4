// SlurmExecutor: a batch of evaluations as one Slurm job array. It writes the job file on
// the shared folder, submits one array task per shard of workloads (sbatch), follows them
// (squeue) with a progress callback, submits again what failed or was preempted until
// the attempts run out, cancels everything (scancel) when it is stopped by Ctrl-C, SIGTERM
// or an error, and merges the tasks' results into one evaluation per job. The tasks
// write only their own folders; the archive is written by the caller alone.
#pragma once

#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "scale/executor.h"
#include "scale/job_file.h"
#include "scale/slurm_settings.h"

namespace kh::scale {

class SlurmClient;
class TaskBoard;

class SlurmExecutor final : public Executor {
 public:
  SlurmExecutor(SlurmSettings settings, std::function<void(const TaskCounts&)> on_tasks);

  [[nodiscard]] std::string_view name() const override { return "slurm"; }
  // Every job of a batch goes into one job array; the cluster decides what runs when.
  [[nodiscard]] std::size_t side_by_side() const override { return std::numeric_limits<std::size_t>::max(); }
  [[nodiscard]] std::vector<SolutionEvaluation> run(std::vector<EvaluationJob> jobs) override;
  [[nodiscard]] nlohmann::ordered_json report() const override { return report_; }

 private:
  void follow(const SlurmClient& client, TaskBoard& board, const std::filesystem::path& batch);

  SlurmSettings settings_;
  std::function<void(const TaskCounts&)> on_tasks_;
  std::vector<std::string> job_ids_;  // every submission of the last run
  nlohmann::ordered_json report_;
};

// The batch script of one submission: #SBATCH lines (array of `tasks`, log per task,
// partition, account, time, GRES, the site's extra lines), the site's setup lines, then
// `kharness eval --job ... --task $SLURM_ARRAY_TASK_ID --task-out ...`.
[[nodiscard]] std::string batch_script(const SlurmSettings& s, const std::filesystem::path& kharness,
                                       const std::filesystem::path& batch,
                                       const std::vector<std::size_t>& tasks, std::size_t submission);
// "0-3,7,9-10": Slurm's --array list for these (sorted) indices.
[[nodiscard]] std::string array_spec(const std::vector<std::size_t>& tasks);
// Where task `task`'s attempt in submission `submission` leaves its files.
[[nodiscard]] std::filesystem::path task_dir(const std::filesystem::path& batch, std::size_t task,
                                             std::size_t submission);

}  // namespace kh::scale
