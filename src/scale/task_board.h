// TaskBoard: where every task of a distributed batch stands, from what squeue says and
// what the tasks left on the shared folder. A task is done once its result is there,
// whatever squeue says; a task that ended without one (failed, preempted, its node lost,
// cancelled, out of time) is submitted again until it has used its attempts, then
// reported failed with every reason it gave. No Slurm here: the executor feeds it rows.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scale/executor.h"
#include "scale/slurm_client.h"

namespace kh::scale {

enum class TaskState { waiting, queued, running, done, failed };

struct TaskRecord {
  TaskState state = TaskState::waiting;
  int attempts = 0;            // submissions so far
  std::string job_id;          // of the current (or last) submission
  std::size_t submission = 0;  // which submission (1, 2, ...) the current attempt belongs to
  std::string node;
  std::vector<std::string> failures;  // one line per failed attempt
  // When the task was first seen finished (or gone) without a result: a result written
  // on another node can take a while to appear through a network file system.
  std::optional<std::chrono::steady_clock::time_point> missing_since;
};

struct TaskBoardChecks {
  std::function<bool(std::size_t task, const TaskRecord&)> has_result;
  // Why the attempt failed, in the task's own words (its failure file, its log's tail,
  // accounting): appended to what squeue said.
  std::function<std::string(std::size_t task, const TaskRecord&)> failure_detail;
};

class TaskBoard {
 public:
  TaskBoard(std::size_t tasks, int max_attempts);

  // Tasks to submit now (new, or failed with attempts left).
  [[nodiscard]] std::vector<std::size_t> to_submit() const;
  void submitted(const std::vector<std::size_t>& tasks, const std::string& job_id, std::size_t submission);

  // One poll. `rows`: squeue's rows for the active jobs.
  void observe(const std::vector<QueueRow>& rows, const TaskBoardChecks& checks,
               std::chrono::steady_clock::time_point now, std::chrono::steady_clock::duration grace);

  [[nodiscard]] bool finished() const;  // every task done or failed
  [[nodiscard]] TaskCounts counts() const;
  // Job ids with a task still queued or running: what squeue is asked about, and what a
  // cancellation cancels.
  [[nodiscard]] std::vector<std::string> active_job_ids() const;
  [[nodiscard]] const TaskRecord& task(std::size_t i) const { return tasks_.at(i); }
  [[nodiscard]] std::size_t size() const noexcept { return tasks_.size(); }

 private:
  void fail_attempt(std::size_t i, std::string why, const TaskBoardChecks& checks);

  std::vector<TaskRecord> tasks_;
  int max_attempts_;
  std::size_t retries_ = 0;
};

[[nodiscard]] std::string_view task_state_name(TaskState s) noexcept;

}  // namespace kh::scale
