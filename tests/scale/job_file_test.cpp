// The job file every Slurm task reads: it carries an evaluation whole (definition,
// workloads, both solutions, checker, tolerance, speed-of-light model, options and the
// pinned seed), tasks deal workloads round robin, and a task sees only its share. The
// site file refuses unknown keys by name. Results merge back in the job's order.
#include "scale/job_file.h"

#include <gtest/gtest.h>

#include "error/error.h"
#include "eval/evaluation_json.h"
#include "eval/operator_library.h"
#include "scale/local_executor.h"
#include "scale/slurm_settings.h"
#include "scale/task_results.h"
#include "support/temp_dir.h"
#include "trace/json_io.h"

namespace kh::scale {
namespace {

const std::filesystem::path kOperators = std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators";

EvaluationJob rmsnorm_job() {
  const OperatorLibrary ops = OperatorLibrary::load(kOperators);
  const OperatorEntry* op = ops.find("rmsnorm_h128");
  EvaluationJob job;
  job.label = "baseline";
  job.target = ops.target(op->definition, ops.workloads("rmsnorm_h128", false), op->dir,
                          ops.baseline("rmsnorm_h128", "cpu"), "cpu");
  job.options.backend = "cpu";
  job.options.seed = 0xDEADBEEFCAFEULL;
  job.options.protocol.iterations = 7;
  job.options.protocol.kind = ProtocolKind::robust;
  job.options.max_consecutive_failures = 5;
  job.options.remeasure_reference = true;  // --remeasure-reference reaches every task
  job.options.reference_cache_max_age = std::chrono::seconds(3600);
  return job;
}

TEST(JobFile, TasksDealWorkloadsRoundRobin) {
  const EvaluationJob job = rmsnorm_job();
  const std::size_t n = job.target.workloads.size();
  ASSERT_GE(n, 5u);
  const std::vector<JobTask> three = plan_tasks({job, job}, 3);
  ASSERT_EQ(three.size(), 6u);
  EXPECT_EQ(three[0].workloads[1], 3u);
  EXPECT_EQ(three[4].evaluation, 1u);
  std::size_t dealt = 0;
  for (const JobTask& t : three) dealt += t.workloads.size();
  EXPECT_EQ(dealt, 2 * n);
  EXPECT_EQ(plan_tasks({job}, 0).size(), n) << "default: one task per workload";
  EvaluationJob empty = job;
  empty.target.workloads.clear();
  EXPECT_THROW((void)plan_tasks({empty}, 0), Error);
}

TEST(JobFile, RoundTripKeepsTheEvaluationAndATaskSeesItsShare) {
  const test::TempDir dir;
  const EvaluationJob job = rmsnorm_job();
  JobFile file{{job}, plan_tasks({job}, 2), dir.path() / "cache"};
  write_job_file(dir.path() / "job.json", file);
  const JobFile back = read_job_file(dir.path() / "job.json");
  ASSERT_EQ(back.evaluations.size(), 1u);
  const EvaluationJob& e = back.evaluations[0];
  EXPECT_EQ(write_definition(e.target.definition), write_definition(job.target.definition));
  EXPECT_EQ(write_solution(e.target.candidate), write_solution(job.target.candidate));
  EXPECT_EQ(write_solution(e.target.reference), write_solution(job.target.reference));
  EXPECT_EQ(e.target.root, job.target.root);
  EXPECT_EQ(e.target.checker, job.target.checker);
  EXPECT_EQ(e.target.tolerance.atol, job.target.tolerance.atol);
  EXPECT_EQ(e.target.speed_of_light.has_value(), job.target.speed_of_light.has_value());
  EXPECT_EQ(e.options.seed, job.options.seed) << "every shard draws from the pinned base";
  EXPECT_EQ(e.options.seed_scheme, SeedScheme::per_workload);
  EXPECT_EQ(e.options.protocol.iterations, 7);
  EXPECT_EQ(e.options.protocol.kind, ProtocolKind::robust);
  EXPECT_EQ(e.options.max_consecutive_failures, 5);
  EXPECT_TRUE(e.options.cache_reference_latency);
  EXPECT_TRUE(e.options.remeasure_reference);
  EXPECT_EQ(e.options.reference_cache_max_age, std::chrono::seconds(3600));
  EXPECT_EQ(back.cache_dir, dir.path() / "cache");
  const EvaluationJob second = task_evaluation(back, 1);
  ASSERT_EQ(second.target.workloads.size(), file.tasks[1].workloads.size());
  EXPECT_EQ(second.target.workloads[0].uuid, job.target.workloads[1].uuid);
  EXPECT_THROW((void)task_evaluation(back, 2), Error);
}

TEST(JobFile, AForeignOrDamagedFileIsRefused) {
  const test::TempDir dir;
  EXPECT_THROW((void)read_job_file(dir.write("a.json", "{\"kind\": \"other\"}")), Error);
  EXPECT_THROW((void)read_job_file(dir.write("b.json", "not json")), Error);
  EXPECT_THROW((void)read_job_file(dir.path() / "missing.json"), Error);
}

TEST(SlurmSettings, SiteFileKeysAreCheckedByName) {
  const test::TempDir dir;
  const SlurmSettings s = read_slurm_settings(dir.write(
      "site.json",
      R"({"shared_dir": "/lustre/kh", "partition": "h200", "gres": "gpu:1", "sbatch": ["--qos=high"],
                      "max_attempts": 5, "setup": ["module load cuda"]})"));
  EXPECT_EQ(s.shared_dir, "/lustre/kh");
  EXPECT_EQ(s.partition, "h200");
  EXPECT_EQ(s.sbatch, (std::vector<std::string>{"--qos=high"}));
  EXPECT_EQ(s.max_attempts, 5);
  try {
    (void)read_slurm_settings(dir.write("typo.json", R"({"partiton": "h200"})"));
    FAIL() << "a misspelt key was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field, "partiton");
    EXPECT_NE(std::string(e.what()).find("partition"), std::string::npos) << "the known keys are listed";
  }
  EXPECT_THROW((void)read_slurm_settings(dir.write("type.json", R"({"max_attempts": "many"})")), Error);
  SlurmSettings no_folder;
  EXPECT_THROW(check_slurm_settings(no_folder), Error);
  no_folder.shared_dir = "/x";
  no_folder.sbatch = {"qos=high"};
  EXPECT_THROW(check_slurm_settings(no_folder), Error) << "an sbatch line is an option";
}

TEST(LocalExecutor, LanesAreSharedByJobsRunSideBySide) {
  EXPECT_EQ(lane_groups(4, 2), (std::vector<std::vector<std::size_t>>{{0, 2}, {1, 3}}));
  EXPECT_EQ(lane_groups(2, 5), (std::vector<std::vector<std::size_t>>{{0}, {1}}));
  EXPECT_EQ(lane_groups(0, 3), (std::vector<std::vector<std::size_t>>{{}})) << "no lanes: the default device";
}

// Two tasks of one evaluation, one done and one out of attempts.
TEST(TaskResults, AFailedShardIsReportedPerWorkloadAndTheRestKeepsItsLanes) {
  EvaluationJob job = rmsnorm_job();
  job.target.workloads.resize(4);
  const std::vector<JobTask> tasks = plan_tasks({job}, 2);  // {0, 2} and {1, 3}
  SolutionEvaluation part;
  part.device = {{"name", "cpu"}};
  part.candidate_build.status = BuildResult::Status::ok;
  part.lanes = {LaneDevice{{{"index", 0}}, std::nullopt, ""}};
  for (const std::size_t i : tasks[0].workloads) {
    WorkloadResult r;
    r.workload = job.target.workloads[i];
    r.status = EvalStatus::passed;
    part.workloads.push_back(r);
  }
  std::vector<TaskOutcome> outcomes(2);
  outcomes[0].evaluation = evaluation_to_json(part);
  outcomes[0].host = "node7";
  outcomes[1].failure = "attempt 1 (job 3): NODE_FAIL; attempt 2 (job 4): PREEMPTED";
  const std::vector<SolutionEvaluation> merged = merge_task_results({job}, tasks, outcomes);
  ASSERT_EQ(merged.size(), 1u);
  const SolutionEvaluation& e = merged[0];
  ASSERT_EQ(e.workloads.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(e.workloads[i].workload.uuid, job.target.workloads[i].uuid);
  EXPECT_EQ(e.workloads[0].status, EvalStatus::passed);
  EXPECT_EQ(e.workloads[2].status, EvalStatus::passed);
  EXPECT_EQ(e.workloads[1].status, EvalStatus::runtime_error);
  EXPECT_NE(e.workloads[3].log.find("Slurm task 1 ran out of attempts: attempt 1 (job 3): NODE_FAIL"),
            std::string::npos)
      << e.workloads[3].log;
  EXPECT_EQ(e.device_of(e.workloads[0]).value("host", ""), "node7") << "a lane names its node";
  EXPECT_FALSE(e.all_passed());
  outcomes[0] = outcomes[1];
  EXPECT_THROW((void)merge_task_results({job}, tasks, outcomes), Error) << "no shard left anything to record";
}

}  // namespace
}  // namespace kh::scale
