// The scale-out options shared by eval, optimize and profile: `--gpus` (device lanes on
// this host) and `--executor local|slurm` with the Slurm settings (a site file and
// per-run overrides). Parsing only; the executors are scale/.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "device/device_lane.h"
#include "scale/executor.h"

namespace kh::cli {

struct ExecutorArgs {
  std::string gpus;
  std::string executor = "local";
  std::string slurm_config;
  std::string shared_dir, partition, account, time, gres;
  std::vector<std::string> sbatch;
  std::optional<std::size_t> tasks;
  std::optional<int> max_attempts;
  std::optional<double> poll;
};

// --gpus alone (profile).
void add_gpus_option(CLI::App* cmd, ExecutorArgs& a);
// --gpus, --executor and the Slurm options (eval, optimize).
void add_executor_options(CLI::App* cmd, ExecutorArgs& a);

// The lanes --gpus names for `backend`; empty without --gpus.
[[nodiscard]] std::vector<DeviceLane> lanes_of(const ExecutorArgs& a, const std::string& backend);

// The executor's settings: the site file, then the options given here over it. Progress
// of a Slurm batch goes to stderr as a bar (with --json too: the JSON is on stdout).
[[nodiscard]] scale::ExecutorSettings executor_settings(const ExecutorArgs& a, const std::string& backend);

// One line of a distributed batch's progress: a bar and the task counts.
[[nodiscard]] std::string task_progress_text(const scale::TaskCounts& c);

}  // namespace kh::cli
