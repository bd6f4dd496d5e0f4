// What the Slurm executor needs to know about a site: the shared folder, the sbatch
// options every task gets, and how hard to try. Read from a JSON site file
// (`--slurm-config`, docs/scale-out.md has every key) and overridden by command-line
// options.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kh::scale {

struct SlurmSettings {
  // Job files, task results, task logs and (by default) the build cache go here. Every
  // node must see it at this same path: a parallel or network file system.
  std::filesystem::path shared_dir;
  std::string partition;            // sbatch --partition
  std::string account;              // sbatch --account
  std::string time;                 // sbatch --time, per task ("30", "00:30:00", "1-00:00:00")
  std::string gres;                 // sbatch --gres, per task ("gpu:1"); empty: none
  std::vector<std::string> sbatch;  // more options, one per #SBATCH line ("--qos=high")
  std::vector<std::string> setup;   // shell lines each task runs first ("module load cuda")
  std::filesystem::path kharness;   // the binary tasks run; empty: this one (it must be on the shared folder)
  std::filesystem::path cache_dir;  // the tasks' build and peaks cache; empty: <shared_dir>/cache
  std::filesystem::path bin_dir;    // where sbatch, squeue, scancel, sacct are; empty: $PATH
  std::string gpus = "all";         // each task's --gpus on CUDA: the GPUs its allocation shows
  std::size_t tasks_per_evaluation =
      0;                         // shards of one evaluation's workloads; 0: one per workload, at most 16
  std::size_t max_parallel = 0;  // array throttle (--array=...%N); 0: none
  int max_attempts = 3;     // a task that fails or is preempted is submitted again, this many times in all
  double poll_seconds = 2;  // how often squeue is asked
  double result_grace_seconds = 30;  // a COMPLETED task's result may lag on a network file system
  double cancel_wait_seconds = 30;   // after scancel, how long to wait for the tasks to leave the queue
};

// Reads a site file. Unknown keys and wrong types are errors naming the file and the key,
// so that a typo does not silently submit to the default partition.
[[nodiscard]] SlurmSettings read_slurm_settings(const std::filesystem::path& file);
[[nodiscard]] SlurmSettings slurm_settings_from_json(const nlohmann::ordered_json& j,
                                                     const std::string& where);

// Throws kh::Error naming the missing or invalid setting (no shared folder, no attempts).
void check_slurm_settings(const SlurmSettings& s);

}  // namespace kh::scale
