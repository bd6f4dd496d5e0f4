// The Slurm executor on a real one-node cluster (LocalSlurmCluster), CPU backend: an
// operator's CI workloads swept as a job array and merged into an archive whose verdicts
// and seeds are those of a local run; a task killed mid-run is submitted again and the
// sweep still completes; SIGTERM to kharness cancels its job and leaves nothing queued;
// and `kharness optimize --executor slurm` runs a round through the cluster. Each test
// skips, saying why, where Slurm is not installed.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "archive/archive.h"
#include "archive/recorded_run.h"
#include "support/local_slurm_cluster.h"
#include "support/temp_dir.h"

extern char** environ;

namespace kh {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

const fs::path kOperators = fs::path(KHARNESS_SOURCE_DIR) / "operators";
const std::string kDefinition = "rmsnorm_h128";

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

class SlurmCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = test::LocalSlurmCluster::unavailable(); !why.empty()) GTEST_SKIP() << why;
    cluster_ = std::make_unique<test::LocalSlurmCluster>();
    // The cluster's tasks and the local runs share one build and peaks cache: the
    // references and baselines compile once.
    cache_ = work_.path() / "cache";
    site_ = work_.write("site.json", json{{"shared_dir", (work_.path() / "shared").string()},
                                          {"cache_dir", cache_.string()},
                                          {"poll_seconds", 0.2},
                                          {"result_grace_seconds", 5},
                                          {"cancel_wait_seconds", 15}}
                                         .dump());
  }
  void TearDown() override { cluster_.reset(); }

  // `kharness eval` of the operator's baseline with light timing; `extra` picks the
  // executor, the archive, the seed.
  std::string eval_args(const std::string& extra, int iterations = 5) const {
    return "eval --definition " + kDefinition + " --baseline --backend cpu --operators " +
           quoted(kOperators) + " --trials 2 --warmup 1 --timing-trials 2 --iterations " +
           std::to_string(iterations) + " " + extra;
  }
  // Runs kharness against the cluster; stdout in `out`, the exit status returned.
  int kharness(const std::string& args, std::string& out) const {
    out = cluster_->shell("KHARNESS_CACHE_DIR=" + quoted(cache_) + " '" KHARNESS_BINARY "' " + args + " 2>" +
                          quoted(work_.path() / "stderr.log") + "; echo \"exit=$?\"");
    const std::size_t at = out.rfind("exit=");
    const int status = at == std::string::npos ? -1 : std::stoi(out.substr(at + 5));
    out.resize(at == std::string::npos ? out.size() : at);
    return status;
  }
  std::string stderr_text() const {
    std::ifstream in(work_.path() / "stderr.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  test::TempDir work_;
  std::unique_ptr<test::LocalSlurmCluster> cluster_;
  fs::path cache_;
  fs::path site_;
};

std::vector<archive::TraceFacts> archived_traces(const fs::path& dir) {
  archive::Archive a = archive::Archive::open_existing(dir);
  return archive::load_run(a, 1).traces;
}

TEST_F(SlurmCluster, SweepMergesIntoAnArchiveWithTheLocalRunsVerdictsAndSeeds) {
  std::string local_out;
  ASSERT_EQ(kharness(eval_args("--seed 99 --json --archive " + quoted(work_.path() / "local")), local_out), 0)
      << stderr_text();
  std::string slurm_out;
  ASSERT_EQ(kharness(eval_args("--seed 99 --json --executor slurm --tasks 3 --slurm-config " + quoted(site_) +
                               " --archive " + quoted(work_.path() / "slurm")),
                     slurm_out),
            0)
      << stderr_text();
  const json local = json::parse(local_out);
  const json slurm = json::parse(slurm_out);
  ASSERT_EQ(local["traces"].size(), slurm["traces"].size());
  ASSERT_GE(local["traces"].size(), 3u);
  for (std::size_t i = 0; i < local["traces"].size(); ++i) {
    const json& l = local["traces"][i];
    const json& s = slurm["traces"][i];
    EXPECT_EQ(l["workload"]["uuid"], s["workload"]["uuid"]) << "merged in the workloads' order";
    EXPECT_EQ(l["evaluation"]["status"], s["evaluation"]["status"]);
    EXPECT_EQ(l["evaluation"]["kharness"]["correctness_seeds"],
              s["evaluation"]["kharness"]["correctness_seeds"]);
    EXPECT_EQ(l["evaluation"]["kharness"]["latency"]["input_set_seeds"],
              s["evaluation"]["kharness"]["latency"]["input_set_seeds"]);
    EXPECT_FALSE(s["evaluation"]["kharness"]["device"].value("host", "").empty()) << "a trace names its node";
  }
  EXPECT_NE(stderr_text().find("3/3 tasks: 0 queued, 0 running, 3 done, 0 failed"), std::string::npos)
      << "the progress bar's last line\n"
      << stderr_text();
  const json& report = slurm["executor"];
  EXPECT_EQ(report["counts"]["done"], 3);
  EXPECT_EQ(report["tasks"].size(), 3u);
  EXPECT_EQ(report["job_ids"].size(), 1u) << "one job array";
  // The archive the submitter wrote, read back: one run, the local run's statuses.
  const auto l = archived_traces(work_.path() / "local");
  const auto s = archived_traces(work_.path() / "slurm");
  ASSERT_EQ(l.size(), s.size());
  for (std::size_t i = 0; i < l.size(); ++i) {
    EXPECT_EQ(l[i].workload_uuid, s[i].workload_uuid);
    EXPECT_EQ(l[i].status, s[i].status);
  }
  std::string verify;
  EXPECT_EQ(kharness("archive verify --archive " + quoted(work_.path() / "slurm"), verify), 0) << verify;
  EXPECT_TRUE(cluster_->active_jobs().empty());
}

TEST_F(SlurmCluster, ATaskKilledMidRunIsSubmittedAgain) {
  // Heavier timing, so that a task is still running when it is killed.
  const std::string args =
      eval_args("--seed 5 --json --executor slurm --tasks 2 --slurm-config " + quoted(site_), 20);
  std::string out;
  std::atomic<bool> finished{false};
  std::thread killer([&] {
    while (!finished) {
      // Task 1's first attempt, once it has evaluated a workload: mid-run.
      std::error_code none_yet;
      for (const auto& batch : fs::directory_iterator(work_.path() / "shared" / "batches", none_yet)) {
        const fs::path traces = batch.path() / "tasks" / "1" / "s1" / "traces.jsonl";
        if (!fs::exists(traces) || fs::file_size(traces) == 0) continue;
        for (const pid_t pid : cluster_->processes_with("/tasks/1/s1")) kill(pid, SIGKILL);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  const int status = kharness(args, out);
  finished = true;
  killer.join();
  ASSERT_EQ(status, 0) << stderr_text();
  const json j = json::parse(out);
  for (const json& t : j["traces"]) EXPECT_EQ(t["evaluation"]["status"], "PASSED") << t.dump();
  const json& task1 = j["executor"]["tasks"][1];
  EXPECT_EQ(task1["state"], "done");
  EXPECT_EQ(task1["attempts"], 2) << task1.dump();
  ASSERT_EQ(task1["failures"].size(), 1u);
  EXPECT_NE(task1["failures"][0].get<std::string>().find("FAILED"), std::string::npos) << task1.dump();
  EXPECT_EQ(j["executor"]["job_ids"].size(), 2u) << "the retry is a submission of its own";
  EXPECT_EQ(j["executor"]["tasks"][0]["attempts"], 1);
}

TEST_F(SlurmCluster, SigtermCancelsTheJobAndLeavesNothingQueued) {
  const std::string command = cluster_->env() + "KHARNESS_CACHE_DIR=" + quoted(cache_) +
                              " exec '" KHARNESS_BINARY "' " +
                              eval_args("--executor slurm --tasks 2 --slurm-config " + quoted(site_), 2000) +
                              " >/dev/null 2>" + quoted(work_.path() / "stderr.log");
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  // Wait until a task runs on the node.
  const auto until = Clock::now() + std::chrono::seconds(120);
  bool running = false;
  while (!running && Clock::now() < until) {
    running = cluster_->shell("squeue -h -t running -o %T").find("RUNNING") != std::string::npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(running) << stderr_text();
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "raw status " << status << "\n"
                                                                  << stderr_text();
  EXPECT_NE(stderr_text().find("cancelling Slurm job"), std::string::npos) << stderr_text();
  EXPECT_TRUE(cluster_->active_jobs().empty()) << cluster_->shell("squeue -r -t all");
  EXPECT_NE(cluster_->shell("squeue -h -r -t all -o %T").find("CANCELLED"), std::string::npos);
}

// A solution of rmsnorm_h128 that does `times` times the work: correct, and slower than
// the baseline, so a round that tries it ends in archive_only after its gates.
fs::path slow_solution(const test::TempDir& dir, int times) {
  const fs::path gallery = fs::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128";
  std::ifstream in(gallery / "rmsnorm_common.h");
  const std::string common(std::istreambuf_iterator<char>(in), {});
  const std::string name = "slow" + std::to_string(times);
  const std::string source =
      "#include \"rmsnorm_common.h\"\nvoid rmsnorm(const DLTensor* x, const DLTensor* w, "
      "DLTensor* y, kh_stream_t) {\n  for (int i = 0; i < " +
      std::to_string(times) + "; ++i) rmsnorm_rows(x, w, y, 0, x->shape[0]);\n}\n";
  const json solution = {{"name", name},
                         {"definition", kDefinition},
                         {"author", "test"},
                         {"spec",
                          {{"language", "cpp"},
                           {"target_hardware", {"cpu"}},
                           {"entry_point", name + ".cpp::rmsnorm"},
                           {"dependencies", json::array()},
                           {"binding", "kharness"}}},
                         {"sources",
                          {{{"path", name + ".cpp"}, {"content", source}},
                           {{"path", "rmsnorm_common.h"}, {"content", common}}}}};
  return dir.write(name + ".json", solution.dump());
}

TEST_F(SlurmCluster, OptimizeEvaluatesARoundsCandidatesAsOneJobArray) {
  std::string out;
  const int status = kharness(
      "optimize --definition " + kDefinition + " --small --backend cpu --operators " + quoted(kOperators) +
          " --agent replay --replay " + quoted(slow_solution(work_, 16)) + " --replay " +
          quoted(slow_solution(work_, 24)) +
          " --rounds 1 --seed 3 --warmup 1 --iterations 3 --json --executor slurm --tasks 1 --slurm-config " +
          quoted(site_) + " --archive " + quoted(work_.path() / "loop"),
      out);
  ASSERT_EQ(status, 0) << stderr_text();
  const json j = json::parse(out);
  EXPECT_EQ(j.value("rounds", 0), 1) << out;
  EXPECT_EQ(j.value("evaluations_measured", 0), 3) << "the baseline, then both candidates' gates";
  ASSERT_EQ(j["decisions"].size(), 1u);
  EXPECT_EQ(j["decisions"][0]["kind"], "archive_only") << out;
  // The baseline's batch, then one batch (one job array) evaluating both candidates.
  std::vector<fs::path> batches;
  for (const auto& b : fs::directory_iterator(work_.path() / "shared" / "batches"))
    batches.push_back(b.path());
  std::sort(batches.begin(), batches.end());
  ASSERT_EQ(batches.size(), 2u);
  std::ifstream job(batches[1] / "job.json");
  const json file = json::parse(job);
  ASSERT_EQ(file["evaluations"].size(), 2u);
  EXPECT_EQ(file["evaluations"][0]["label"], "slow16");
  EXPECT_EQ(file["evaluations"][1]["label"], "slow24");
  EXPECT_TRUE(cluster_->active_jobs().empty());
}

}  // namespace
}  // namespace kh
