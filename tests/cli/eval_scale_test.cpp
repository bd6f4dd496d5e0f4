// The scale-out options of the command line. `kharness eval --gpus` on the CPU backend's
// logical lanes: the same verdicts and seeds as without it, every trace naming its
// lane's device, a clear refusal of a bad list; `optimize --gpus` running its round; and
// `--executor slurm` refusing, in one clear line, what it cannot run with (no shared
// folder, no Slurm commands, a misspelt site file). The Slurm runs themselves are in
// tests/scale/slurm_cluster_test.cpp, on a real cluster.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "kharness_command.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using kh::cli_test::run;
using kh::cli_test::Stderr;

const fs::path kOperators = fs::path(KHARNESS_SOURCE_DIR) / "operators";

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

std::string eval_command(const std::string& extra) {
  return "eval --definition rmsnorm_h128 --baseline --backend cpu --operators " + quoted(kOperators) +
         " --trials 2 --warmup 1 --iterations 5 --timing-trials 2 --seed 11 --json " + extra;
}

TEST(CliEvalGpus, LanesGiveTheVerdictsAndSeedsOfOne) {
  const auto one = run(eval_command(""), Stderr::dropped);
  const auto two = run(eval_command("--gpus 0,1"), Stderr::dropped);
  ASSERT_EQ(one.status, 0) << one.out;
  ASSERT_EQ(two.status, 0) << two.out;
  const auto a = nlohmann::json::parse(one.out);
  const auto b = nlohmann::json::parse(two.out);
  ASSERT_EQ(a["traces"].size(), b["traces"].size());
  std::set<int> lanes;
  for (std::size_t i = 0; i < a["traces"].size(); ++i) {
    const auto& x = a["traces"][i]["evaluation"];
    const auto& y = b["traces"][i]["evaluation"];
    EXPECT_EQ(x["status"], y["status"]);
    EXPECT_EQ(x["kharness"]["correctness_seeds"], y["kharness"]["correctness_seeds"]);
    EXPECT_EQ(x["kharness"]["latency"]["input_set_seeds"], y["kharness"]["latency"]["input_set_seeds"]);
    lanes.insert(y["kharness"]["device"].value("index", -1));
  }
  EXPECT_EQ(lanes, (std::set<int>{0, 1}));
  ASSERT_EQ(b["lanes"].size(), 2u);
  EXPECT_FALSE(a.contains("lanes")) << "one lane: no lane list";
}

TEST(CliEvalGpus, ABadListIsAUsageError) {
  const auto r = run(eval_command("--gpus 0,0"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--gpus: device 0 is named twice"), std::string::npos) << r.out;
}

TEST(CliOptimizeGpus, ARoundRunsOnTwoLanes) {
  const kh::test::TempDir dir;
  const auto r = run(
      "optimize --definition rmsnorm_h128 --small --backend cpu --operators " + quoted(kOperators) +
          " --rounds 1 --max-candidates 2 --seed 3 --warmup 1 --iterations 3 --json --gpus 0,1 --archive " +
          quoted(dir.path() / "loop"),
      Stderr::dropped);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rounds"], 1);
  EXPECT_GE(j["evaluations_measured"].get<int>(), 3) << "the baseline and two candidates, measured";
  ASSERT_EQ(j["decisions"].size(), 1u);
}

TEST(CliEvalSlurm, MissingSettingsAreUsageErrorsNamingWhatIsMissing) {
  const kh::test::TempDir dir;
  const auto no_folder = run(eval_command("--executor slurm"));
  EXPECT_EQ(no_folder.status, 2);
  EXPECT_NE(no_folder.out.find("shared_dir: the Slurm executor needs a folder every node sees"),
            std::string::npos)
      << no_folder.out;
  const fs::path empty_bin = dir.path() / "bin";
  fs::create_directories(empty_bin);
  const fs::path site = dir.write("site.json", "{\"shared_dir\": \"" + (dir.path() / "shared").string() +
                                                   "\", \"bin_dir\": \"" + empty_bin.string() + "\"}");
  const auto no_sbatch = run(eval_command("--executor slurm --slurm-config " + quoted(site)));
  EXPECT_EQ(no_sbatch.status, 2);
  EXPECT_NE(no_sbatch.out.find("no sbatch in this folder"), std::string::npos) << no_sbatch.out;
  const fs::path typo = dir.write("typo.json", R"({"shared_dir": "/x", "gress": "gpu:1"})");
  const auto misspelt = run(eval_command("--executor slurm --slurm-config " + quoted(typo)));
  EXPECT_EQ(misspelt.status, 2);
  EXPECT_NE(misspelt.out.find("gress: unknown setting"), std::string::npos) << misspelt.out;
  EXPECT_EQ(run(eval_command("--executor cloud")).status, 2);
}

}  // namespace
