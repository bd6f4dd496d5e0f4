// Parsing what Slurm's commands print, and the batch script kharness submits.
#include "scale/slurm_client.h"

#include <gtest/gtest.h>

#include "scale/slurm_executor.h"

namespace kh::scale {
namespace {

TEST(SlurmClient, QueueRowsAreParsedAndWarningsSkipped) {
  const auto rows = parse_queue(
      "squeue: warning: something\n"
      "12|0|RUNNING|node1|None\n"
      "12|3|PENDING||Resources\n"
      "12|4|FAILED|node2|NonZeroExitCode\r\n"
      "garbage\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].job_id, "12");
  EXPECT_EQ(rows[0].task, 0u);
  EXPECT_EQ(rows[0].state, "RUNNING");
  EXPECT_EQ(rows[0].node, "node1");
  EXPECT_EQ(rows[0].reason, "") << "squeue's None is no reason";
  EXPECT_EQ(rows[1].task, 3u);
  EXPECT_EQ(rows[1].reason, "Resources");
  EXPECT_EQ(rows[2].reason, "NonZeroExitCode");
}

TEST(SlurmClient, SubmittedJobIdIsFoundAmongWarnings) {
  EXPECT_EQ(parse_submitted_job_id("sbatch: warning: x\n4711\n"), "4711");
  EXPECT_EQ(parse_submitted_job_id("4712;cluster2\n"), "4712");
  EXPECT_EQ(parse_submitted_job_id("sbatch: error: invalid partition\n"), std::nullopt);
}

TEST(SlurmScript, ArraySpecCompressesRuns) {
  EXPECT_EQ(array_spec({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(array_spec({0, 2, 3, 7, 9, 10}), "0,2-3,7,9-10");
  EXPECT_EQ(array_spec({5}), "5");
}

TEST(SlurmScript, CarriesTheSiteOptionsAndRunsOneTaskOfTheJob) {
  SlurmSettings s;
  s.partition = "h200";
  s.account = "proj";
  s.time = "00:30:00";
  s.gres = "gpu:1";
  s.sbatch = {"--qos=high"};
  s.setup = {"module load cuda/13.0"};
  s.max_parallel = 4;
  const std::string script = batch_script(s, "/opt/it's/kharness", "/shared/batches/b1", {1, 2, 5}, 2);
  for (const char* line :
       {"#SBATCH --array=1-2,5%4\n", "#SBATCH --partition=h200\n", "#SBATCH --account=proj\n",
        "#SBATCH --time=00:30:00\n", "#SBATCH --gres=gpu:1\n", "#SBATCH --qos=high\n",
        "#SBATCH --output=/shared/batches/b1/logs/task-%a.s2.log\n", "module load cuda/13.0\n"}) {
    EXPECT_NE(script.find(line), std::string::npos) << line << "\n" << script;
  }
  EXPECT_NE(script.find(
                "exec '/opt/it'\\''s/kharness' eval --job '/shared/batches/b1/job.json' --task "
                "\"$SLURM_ARRAY_TASK_ID\" --task-out '/shared/batches/b1/tasks/'\"$SLURM_ARRAY_TASK_ID\"/s2"),
            std::string::npos)
      << script;
  EXPECT_LT(script.find("module load"), script.find("exec ")) << "setup runs before kharness";
}

}  // namespace
}  // namespace kh::scale
