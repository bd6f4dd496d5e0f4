// SlurmClient: Slurm's own commands, run as child processes. sbatch submits a batch
// script, squeue follows the array's tasks (finished ones too, while the controller
// keeps them), scancel cancels, sacct says how a task that left the queue ended where
// accounting is on. The output parsers are separate functions, tested on their own.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kh::scale {

// One array task as squeue reports it.
struct QueueRow {
  std::string job_id;    // the array's job id (%F)
  std::size_t task = 0;  // the array index (%K)
  std::string state;     // PENDING, RUNNING, COMPLETED, FAILED, NODE_FAIL, PREEMPTED, ...
  std::string node;      // where it runs or ran; "" while pending
  std::string reason;    // why pending, or why it ended
};

// The squeue format parse_queue reads: array job id, task id, state, node, reason.
inline constexpr const char* kQueueFormat = "%F|%K|%T|%N|%r";

// Rows of `squeue -h -r -o kQueueFormat`; lines that are not rows (warnings) are skipped.
[[nodiscard]] std::vector<QueueRow> parse_queue(std::string_view text);
// The job id of `sbatch --parsable` output ("123" or "123;cluster"), skipping any
// warning lines around it; nullopt when there is none.
[[nodiscard]] std::optional<std::string> parse_submitted_job_id(std::string_view text);

class SlurmClient {
 public:
  // Finds sbatch, squeue and scancel (and sacct, optional) in `bin_dir`, else on $PATH.
  // Throws kh::Error naming what is missing.
  explicit SlurmClient(const std::filesystem::path& bin_dir = {});

  // Submits `script`; returns the job id. Throws kh::Error with sbatch's own words when
  // it refuses (a bad partition, account or GRES).
  [[nodiscard]] std::string submit(const std::filesystem::path& script) const;
  // The tasks of these jobs, finished ones included; nullopt when squeue itself failed
  // (the controller is unreachable, say), so that the caller can try again. A job the
  // controller no longer knows has no rows.
  [[nodiscard]] std::optional<std::vector<QueueRow>> queue(const std::vector<std::string>& job_ids) const;
  // scancel; true when scancel ran and succeeded.
  bool cancel(const std::vector<std::string>& job_ids) const;
  // How a task ended according to accounting ("FAILED 1:0 on node3"), or nullopt when
  // accounting is off or does not know it.
  [[nodiscard]] std::optional<std::string> accounting(const std::string& job_id, std::size_t task) const;

 private:
  std::filesystem::path sbatch_, squeue_, scancel_;
  std::optional<std::filesystem::path> sacct_;
};

}  // namespace kh::scale
