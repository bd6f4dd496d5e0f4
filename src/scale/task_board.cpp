#include "scale/task_board.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace kh::scale {

namespace {

bool one_of(std::string_view state, std::initializer_list<std::string_view> states) {
  return std::find(states.begin(), states.end(), state) != states.end();
}

// Slurm's job states (squeue --states): those in which the task will still run, and
// those in which it runs now. Anything else has ended.
bool waiting_state(std::string_view s) {
  return one_of(s, {"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING",
                    "SUSPENDED", "RESV_DEL_HOLD", "SIGNALING", "STOPPED"});
}
bool running_state(std::string_view s) { return one_of(s, {"RUNNING", "COMPLETING", "STAGE_OUT"}); }

}  // namespace

std::string_view task_state_name(TaskState s) noexcept {
  constexpr std::array<std::string_view, 5> names = {"waiting", "queued", "running", "done", "failed"};
  return names.at(static_cast<std::size_t>(s));
}

TaskBoard::TaskBoard(std::size_t tasks, int max_attempts) : tasks_(tasks), max_attempts_(max_attempts) {}

std::vector<std::size_t> TaskBoard::to_submit() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < tasks_.size(); ++i)
    if (tasks_[i].state == TaskState::waiting) out.push_back(i);
  return out;
}

void TaskBoard::submitted(const std::vector<std::size_t>& tasks, const std::string& job_id,
                          std::size_t submission) {
  for (const std::size_t i : tasks) {
    TaskRecord& t = tasks_.at(i);
    if (t.attempts > 0) ++retries_;
    ++t.attempts;
    t.state = TaskState::queued;
    t.job_id = job_id;
    t.submission = submission;
    t.node.clear();
    t.missing_since.reset();
  }
}

void TaskBoard::fail_attempt(std::size_t i, std::string why, const TaskBoardChecks& checks) {
  TaskRecord& t = tasks_[i];
  if (checks.failure_detail) {
    const std::string detail = checks.failure_detail(i, t);
    if (!detail.empty()) why += ": " + detail;
  }
  t.failures.push_back(fmt::format("attempt {} (job {}{}): {}", t.attempts, t.job_id,
                                   t.node.empty() ? "" : " on " + t.node, why));
  t.state = t.attempts < max_attempts_ ? TaskState::waiting : TaskState::failed;
  t.missing_since.reset();
}

void TaskBoard::observe(const std::vector<QueueRow>& rows, const TaskBoardChecks& checks,
                        std::chrono::steady_clock::time_point now,
                        std::chrono::steady_clock::duration grace) {
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    TaskRecord& t = tasks_[i];
    if (t.state != TaskState::queued && t.state != TaskState::running) continue;
    if (checks.has_result && checks.has_result(i, t)) {
      t.state = TaskState::done;
      continue;
    }
    const auto row = std::find_if(rows.begin(), rows.end(),
                                  [&](const QueueRow& r) { return r.job_id == t.job_id && r.task == i; });
    if (row != rows.end() && !row->node.empty()) t.node = row->node;
    if (row != rows.end() && waiting_state(row->state)) {
      t.state = TaskState::queued;  // again, after a requeue
    } else if (row != rows.end() && running_state(row->state)) {
      t.state = TaskState::running;
    } else if (row != rows.end() && row->state != "COMPLETED") {
      fail_attempt(i, row->reason.empty() ? row->state : row->state + " (" + row->reason + ")", checks);
    } else {
      // COMPLETED, or gone from the queue, and no result yet: wait for the file system.
      if (!t.missing_since) t.missing_since = now;
      if (now - *t.missing_since >= grace) {
        fail_attempt(i,
                     row != rows.end() ? "COMPLETED but left no result" : "left the queue without a result",
                     checks);
      }
    }
  }
}

bool TaskBoard::finished() const {
  return std::all_of(tasks_.begin(), tasks_.end(), [](const TaskRecord& t) {
    return t.state == TaskState::done || t.state == TaskState::failed;
  });
}

TaskCounts TaskBoard::counts() const {
  TaskCounts c;
  c.total = tasks_.size();
  c.retries = retries_;
  for (const TaskRecord& t : tasks_) {
    switch (t.state) {
      case TaskState::waiting:
      case TaskState::queued:
        ++c.queued;
        break;
      case TaskState::running:
        ++c.running;
        break;
      case TaskState::done:
        ++c.done;
        break;
      case TaskState::failed:
        ++c.failed;
        break;
    }
  }
  return c;
}

std::vector<std::string> TaskBoard::active_job_ids() const {
  std::vector<std::string> ids;
  for (const TaskRecord& t : tasks_) {
    if ((t.state == TaskState::queued || t.state == TaskState::running) &&
        std::find(ids.begin(), ids.end(), t.job_id) == ids.end())
      ids.push_back(t.job_id);
  }
  return ids;
}

}  // namespace kh::scale
