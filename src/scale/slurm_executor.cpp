#include "scale/slurm_executor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "archive/utc_time.h"
#include "base/jail/sandbox_mode.h"
#include "error/error.h"
#include "scale/eval_task.h"
#include "scale/signal_trap.h"
#include "scale/slurm_client.h"
#include "scale/task_board.h"
#include "scale/task_results.h"
#include "worker/self_executable.h"

namespace kh::scale {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

namespace {

// A controller that does not answer squeue for this long is given up on.
constexpr std::chrono::minutes kQueueOutage{5};

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

fs::path new_batch_dir(const fs::path& shared) {
  static std::atomic<int> counter{0};
  char host[64] = {};
  (void)gethostname(host, sizeof host - 1);
  std::string stamp = archive::utc_now();
  for (char& c : stamp)
    if (c == ':') c = '-';
  fs::path dir = shared / "batches" / fmt::format("{}-{}-{}-{}", stamp, host, ::getpid(), counter++);
  fs::create_directories(dir / "logs");
  return dir;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The last few non-empty lines of a task's log, on one line.
std::string log_tail(const fs::path& log) {
  std::vector<std::string> lines;
  std::istringstream in(read_text(log));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  std::string tail;
  for (std::size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i)
    tail += (tail.empty() ? "" : " | ") + lines[i];
  return tail.size() > 400 ? "..." + tail.substr(tail.size() - 400) : tail;
}

fs::path log_path(const fs::path& batch, std::size_t task, std::size_t submission) {
  return batch / "logs" / fmt::format("task-{}.s{}.log", task, submission);
}

std::string failure_detail(const SlurmClient& client, const fs::path& batch, std::size_t i,
                           const TaskRecord& t) {
  const fs::path failure = task_dir(batch, i, t.submission) / kTaskFailure;
  if (fs::exists(failure)) {
    const json j = json::parse(read_text(failure), nullptr, false);
    if (j.is_object() && j.contains("error")) return j["error"].get<std::string>();
  }
  std::string detail = log_tail(log_path(batch, i, t.submission));
  if (const auto acct = client.accounting(t.job_id, i))
    detail = *acct + (detail.empty() ? "" : "; log: " + detail);
  return detail;
}

// Cancels what is still queued or running, and waits (bounded) until squeue no longer
// shows any of it active: a stopped kharness leaves no job behind.
void cancel_all(const SlurmClient& client, const std::vector<std::string>& ids, double wait_s) {
  if (ids.empty()) return;
  (void)client.cancel(ids);
  const auto until = Clock::now() + std::chrono::duration<double>(wait_s);
  while (Clock::now() < until) {
    const auto rows = client.queue(ids);
    const bool active = !rows || std::any_of(rows->begin(), rows->end(), [](const QueueRow& r) {
      return r.state != "COMPLETED" && r.state != "CANCELLED" && r.state != "FAILED" &&
             r.state != "TIMEOUT" && r.state != "NODE_FAIL" && r.state != "PREEMPTED" &&
             r.state != "OUT_OF_MEMORY" && r.state != "BOOT_FAIL" && r.state != "DEADLINE";
    });
    if (!active) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

// Cancels the batch's jobs if the follow loop is left by an exception.
class CancelOnUnwind {
 public:
  CancelOnUnwind(const SlurmClient& client, const TaskBoard& board, double wait_s)
      : client_(client), board_(board), wait_s_(wait_s) {}
  CancelOnUnwind(const CancelOnUnwind&) = delete;
  CancelOnUnwind& operator=(const CancelOnUnwind&) = delete;
  ~CancelOnUnwind() {
    if (std::uncaught_exceptions() > 0) cancel_all(client_, board_.active_job_ids(), wait_s_);
  }

 private:
  const SlurmClient& client_;
  const TaskBoard& board_;
  double wait_s_;
};

json task_report(const TaskBoard& board, const JobFile& file) {
  json tasks = json::array();
  for (std::size_t i = 0; i < board.size(); ++i) {
    const TaskRecord& t = board.task(i);
    tasks.push_back({{"task", i},
                     {"evaluation", file.evaluations.at(file.tasks[i].evaluation).label},
                     {"workloads", file.tasks[i].workloads.size()},
                     {"state", std::string(task_state_name(t.state))},
                     {"attempts", t.attempts},
                     {"job_id", t.job_id},
                     {"node", t.node},
                     {"failures", t.failures}});
  }
  return tasks;
}

}  // namespace

std::string array_spec(const std::vector<std::size_t>& tasks) {
  std::string out;
  for (std::size_t i = 0; i < tasks.size();) {
    std::size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
    out += (out.empty() ? "" : ",") +
           (j == i ? std::to_string(tasks[i]) : fmt::format("{}-{}", tasks[i], tasks[j]));
    i = j + 1;
  }
  return out;
}

fs::path task_dir(const fs::path& batch, std::size_t task, std::size_t submission) {
  return batch / "tasks" / std::to_string(task) / fmt::format("s{}", submission);
}

std::string batch_script(const SlurmSettings& s, const fs::path& kharness, const fs::path& batch,
                         const std::vector<std::size_t>& tasks, std::size_t submission) {
  std::string out = "#!/bin/bash\n";
  auto directive = [&](const std::string& option) { out += "#SBATCH " + option + "\n"; };
  directive("--job-name=kharness-" + batch.filename().string());
  std::string array = "--array=" + array_spec(tasks);
  if (s.max_parallel > 0) array += fmt::format("%{}", s.max_parallel);
  directive(array);
  directive("--output=" + (batch / "logs" / fmt::format("task-%a.s{}.log", submission)).string());
  directive("--nodes=1");
  directive("--ntasks=1");
  if (!s.partition.empty()) directive("--partition=" + s.partition);
  if (!s.account.empty()) directive("--account=" + s.account);
  if (!s.time.empty()) directive("--time=" + s.time);
  if (!s.gres.empty()) directive("--gres=" + s.gres);
  for (const std::string& line : s.sbatch) directive(line);
  out += "# Written by kharness: one task evaluates one shard of workloads (docs/scale-out.md).\n";
  for (const std::string& line : s.setup) out += line + "\n";
  out += fmt::format(
      "exec {} eval --job {} --task \"$SLURM_ARRAY_TASK_ID\" --task-out {}\"$SLURM_ARRAY_TASK_ID\"/s{} "
      "--gpus {} --sandbox {}\n",
      shell_quoted(kharness.string()), shell_quoted((batch / "job.json").string()),
      shell_quoted((batch / "tasks").string() + "/"), submission, shell_quoted(s.gpus),
      // The tasks jail candidates as this kharness was told to.
      sandbox_mode_name(sandbox_mode()));
  return out;
}

SlurmExecutor::SlurmExecutor(SlurmSettings settings, std::function<void(const TaskCounts&)> on_tasks)
    : settings_(std::move(settings)), on_tasks_(std::move(on_tasks)) {}

void SlurmExecutor::follow(const SlurmClient& client, TaskBoard& board, const fs::path& batch) {
  const fs::path kharness = settings_.kharness.empty() ? self_executable() : settings_.kharness;
  SignalTrap trap;
  const CancelOnUnwind cancel_on_error(client, board, settings_.cancel_wait_seconds);
  const TaskBoardChecks checks{
      [&](std::size_t i, const TaskRecord& t) {
        return fs::exists(task_dir(batch, i, t.submission) / kTaskResult);
      },
      [&](std::size_t i, const TaskRecord& t) { return failure_detail(client, batch, i, t); }};
  const auto grace = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(settings_.result_grace_seconds));
  std::size_t submission = 0;
  auto last_answer = Clock::now();
  std::optional<TaskCounts> shown;
  while (true) {
    if (trap.caught() != 0) {
      fmt::print(stderr, "kharness: signal {}: cancelling Slurm job(s) {}\n", trap.caught(),
                 fmt::join(job_ids_, ","));
      cancel_all(client, job_ids_, settings_.cancel_wait_seconds);
      trap.reraise();
      throw Error("interrupted");  // only if the signal's previous disposition ignores it
    }
    if (const std::vector<std::size_t> waiting = board.to_submit(); !waiting.empty()) {
      const fs::path script = batch / fmt::format("submit-s{}.sh", ++submission);
      std::ofstream(script) << batch_script(settings_, kharness, batch, waiting, submission);
      const std::string id = client.submit(script);
      job_ids_.push_back(id);
      board.submitted(waiting, id, submission);
    }
    if (const auto rows = client.queue(board.active_job_ids())) {
      last_answer = Clock::now();
      board.observe(*rows, checks, Clock::now(), grace);
    } else if (Clock::now() - last_answer > kQueueOutage) {
      throw Error("squeue has not answered for 5 minutes: the Slurm controller is unreachable");
    }
    const TaskCounts now = board.counts();
    if (on_tasks_ &&
        (!shown || now.queued != shown->queued || now.running != shown->running || now.done != shown->done ||
         now.failed != shown->failed || now.retries != shown->retries)) {
      on_tasks_(now);
      shown = now;
    }
    if (board.finished()) return;
    trap.sleep_for(settings_.poll_seconds);
  }
}

std::vector<SolutionEvaluation> SlurmExecutor::run(std::vector<EvaluationJob> jobs) {
  check_slurm_settings(settings_);
  const SlurmClient client(settings_.bin_dir);
  const auto t0 = Clock::now();
  for (EvaluationJob& j : jobs) {
    // Every shard of a job draws from one base seed, so the merged run is the run a
    // single process would have made (and rerun can repeat it).
    if (!j.options.seed) {
      std::random_device os;
      j.options.seed = (std::uint64_t{os()} << 32) ^ os();
    }
  }
  JobFile file{jobs, plan_tasks(jobs, settings_.tasks_per_evaluation),
               settings_.cache_dir.empty() ? settings_.shared_dir / "cache" : settings_.cache_dir};
  const fs::path batch = new_batch_dir(settings_.shared_dir);
  write_job_file(batch / "job.json", file);
  job_ids_.clear();
  TaskBoard board(file.tasks.size(), settings_.max_attempts);
  follow(client, board, batch);

  std::vector<TaskOutcome> outcomes(board.size());
  for (std::size_t i = 0; i < board.size(); ++i) {
    const TaskRecord& t = board.task(i);
    if (t.state == TaskState::done) {
      const json doc = json::parse(read_text(task_dir(batch, i, t.submission) / kTaskResult), nullptr, false);
      if (doc.is_discarded() || !doc.contains("evaluation"))
        throw Error(Location{task_dir(batch, i, t.submission).string(), 0, kTaskResult}, "not a task result");
      outcomes[i].evaluation = doc["evaluation"];
      outcomes[i].host = doc.value("placement", json::object()).value("host", std::string());
    } else {
      outcomes[i].failure = fmt::format("{}", fmt::join(t.failures, "; "));
    }
  }
  std::vector<SolutionEvaluation> merged = merge_task_results(jobs, file.tasks, outcomes);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (!jobs[j].options.on_workload) continue;
    for (const WorkloadResult& w : merged[j].workloads) jobs[j].options.on_workload(merged[j], w);
  }
  const TaskCounts c = board.counts();
  report_ = {{"executor", "slurm"},
             {"batch_dir", batch.string()},
             {"job_ids", job_ids_},
             {"seconds", std::chrono::duration<double>(Clock::now() - t0).count()},
             {"counts", {{"total", c.total}, {"done", c.done}, {"failed", c.failed}, {"retries", c.retries}}},
             {"tasks", task_report(board, file)}};
  return merged;
}

}  // namespace kh::scale
