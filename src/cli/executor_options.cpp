#include "cli/executor_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "error/error.h"
#include "eval/eval_invocation.h"

namespace kh::cli {

void add_gpus_option(CLI::App* cmd, ExecutorArgs& a) {
  cmd->add_option(eval_flag::kGpus, a.gpus,
                  "Devices to deal the workloads over, one reference and one candidate worker each: all, or "
                  "ordinals such as 0,1 (on the cpu backend: logical lanes sharing the host)");
}

void add_executor_options(CLI::App* cmd, ExecutorArgs& a) {
  add_gpus_option(cmd, a);
  cmd->add_option("--executor", a.executor,
                  "Where evaluations run: local (this host) or slurm (a job array; docs/scale-out.md)")
      ->check(CLI::IsMember(scale::executor_names()));
  cmd->add_option("--slurm-config", a.slurm_config,
                  "Slurm site file (JSON: partition, gres, sbatch lines, ...)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--shared-dir", a.shared_dir, "Slurm: folder every node sees (job files, results, logs)");
  cmd->add_option("--partition", a.partition, "Slurm: sbatch --partition");
  cmd->add_option("--account", a.account, "Slurm: sbatch --account");
  cmd->add_option("--task-time", a.time, "Slurm: sbatch --time, per task (e.g. 00:30:00)");
  cmd->add_option("--gres", a.gres, "Slurm: sbatch --gres, per task (e.g. gpu:1)");
  cmd->add_option("--sbatch", a.sbatch,
                  "Slurm: one more sbatch option per task, e.g. --sbatch=--qos=high (repeatable)");
  cmd->add_option(
         "--tasks", a.tasks,
         "Slurm: tasks per evaluation, its workloads dealt over them (default: one a workload, at most 16)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-attempts", a.max_attempts,
                  "Slurm: attempts per task before its workloads are reported failed (3)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--poll", a.poll, "Slurm: seconds between squeue polls (2)")->check(CLI::PositiveNumber);
}

std::vector<DeviceLane> lanes_of(const ExecutorArgs& a, const std::string& backend) {
  if (a.gpus.empty()) return {};
  return device_lanes(backend, a.gpus);
}

std::string task_progress_text(const scale::TaskCounts& c) {
  constexpr std::size_t kWidth = 30;
  const std::size_t finished = c.done + c.failed;
  const std::size_t filled = c.total ? kWidth * finished / c.total : kWidth;
  return fmt::format("[{}{}] {}/{} tasks: {} queued, {} running, {} done, {} failed{}",
                     std::string(filled, '#'), std::string(kWidth - filled, '.'), finished, c.total, c.queued,
                     c.running, c.done, c.failed,
                     c.retries ? fmt::format(" ({} resubmitted)", c.retries) : std::string());
}

scale::ExecutorSettings executor_settings(const ExecutorArgs& a, const std::string& backend) {
  scale::ExecutorSettings s;
  s.name = a.executor;
  if (a.executor == "local") {
    s.lanes = lanes_of(a, backend);
    return s;
  }
  if (!a.slurm_config.empty()) s.slurm = scale::read_slurm_settings(a.slurm_config);
  scale::SlurmSettings& slurm = s.slurm;
  if (!a.shared_dir.empty()) slurm.shared_dir = std::filesystem::absolute(a.shared_dir);
  if (!a.partition.empty()) slurm.partition = a.partition;
  if (!a.account.empty()) slurm.account = a.account;
  if (!a.time.empty()) slurm.time = a.time;
  if (!a.gres.empty()) slurm.gres = a.gres;
  slurm.sbatch.insert(slurm.sbatch.end(), a.sbatch.begin(), a.sbatch.end());
  if (a.tasks) slurm.tasks_per_evaluation = *a.tasks;
  if (a.max_attempts) slurm.max_attempts = *a.max_attempts;
  if (a.poll) slurm.poll_seconds = *a.poll;
  if (!a.gpus.empty()) slurm.gpus = a.gpus;
  scale::check_slurm_settings(slurm);
  static const bool tty = isatty(STDERR_FILENO) != 0;
  s.on_tasks = [](const scale::TaskCounts& c) {
    fmt::print(stderr, "{}{}{}", tty ? "\r" : "", task_progress_text(c),
               tty && c.done + c.failed < c.total ? "   " : "\n");
    std::fflush(stderr);
  };
  return s;
}

}  // namespace kh::cli
