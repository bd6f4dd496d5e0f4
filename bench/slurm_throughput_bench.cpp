// Throughput of the Slurm executor against the number of tasks, on a one-node cluster
// started on this host (tests/support/local_slurm_cluster.h), CPU backend: one sweep of
// an operator's workloads per task count, wall time from `kharness eval` to the merged
// result, and the same sweep run locally on one lane and on two CPU lanes for scale.
// It measures the executor's cost and parallelism (submission, scheduling, task start,
// polling, merge), not kernels. Needs root and slurm-wlm + munge, as the tests do.
//
//   build/bench/bench_slurm_throughput --tasks 1,2,4,8 --out slurm_throughput.json
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/local_slurm_cluster.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

struct Run {
  double seconds = 0;
  int exit_code = -1;
  json out;
};

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

Run run_kharness(const kh::test::LocalSlurmCluster& cluster, const fs::path& cache, const std::string& args) {
  const auto t0 = Clock::now();
  const std::string text =
      cluster.shell("KHARNESS_CACHE_DIR=" + quoted(cache) + " '" KHARNESS_EXECUTABLE "' " + args +
                    " 2>/dev/null; echo \"exit=$?\"");
  Run r;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const std::size_t at = text.rfind("exit=");
  if (at != std::string::npos) r.exit_code = std::stoi(text.substr(at + 5));
  r.out = json::parse(text.substr(0, at), nullptr, false);
  return r;
}

// A trace set of `n` workloads of the definition, its own workloads repeated under new
// uuids: enough shards to spread over the task counts, each small on the CPU.
fs::path repeated_set(const kh::test::TempDir& work, const std::string& definition, std::size_t n) {
  const fs::path op = fs::path(KHARNESS_SOURCE_DIR) / "operators" / definition;
  std::ifstream def(op / "definition.json");
  work.write("set/definitions/" + definition + ".json", std::string(std::istreambuf_iterator<char>(def), {}));
  std::vector<json> lines;
  std::ifstream in(op / "workloads.jsonl");
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(json::parse(line));
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    json w = lines.at(i % lines.size());
    w["workload"]["uuid"] = fmt::format("00000000-0000-4000-8000-{:012d}", i);
    out += w.dump() + "\n";
  }
  work.write("set/workloads/" + definition + ".jsonl", out);
  return work.path() / "set";
}

// Every workload's correctness seeds, in order: equal runs drew the same inputs.
json seeds_of(const json& out) {
  json seeds = json::array();
  if (!out.is_object()) return seeds;
  for (const auto& t : out["traces"]) seeds.push_back(t["evaluation"]["kharness"]["correctness_seeds"]);
  return seeds;
}

std::size_t passed(const json& out) {
  std::size_t n = 0;
  if (!out.is_object()) return 0;
  for (const auto& t : out["traces"]) n += t["evaluation"]["status"] == "PASSED" ? 1 : 0;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Slurm executor throughput against the number of tasks (one-node cluster, CPU backend)"};
  std::vector<std::size_t> tasks = {1, 2, 4, 8};
  std::string definition = "rmsnorm_h128";
  std::string out_path = "slurm_throughput.json";
  std::size_t workloads = 24;
  int cpus = 2;
  bool quick = false;
  app.add_option("--tasks", tasks, "Task counts to measure")->delimiter(',');
  app.add_option("--definition", definition, "Operator whose workloads are swept");
  app.add_option("--cpus", cpus, "CPUs the node declares (tasks Slurm runs at once)");
  app.add_option("--workloads", workloads, "Workloads swept: the definition's own, repeated under new uuids");
  app.add_option("--out", out_path, "Report file");
  app.add_flag("--quick", quick, "CI workloads and task counts 1,2 only (the numbers mean little)");
  CLI11_PARSE(app, argc, argv);
  if (const std::string why = kh::test::LocalSlurmCluster::unavailable(); !why.empty()) {
    std::cerr << "bench_slurm_throughput: " << why << "\n";
    return 2;
  }
  if (quick) tasks = {1, 2};
  const kh::test::TempDir work("kh-slurm-bench-");
  const kh::test::LocalSlurmCluster cluster(cpus, 0);
  const fs::path cache = work.path() / "cache";
  if (quick) workloads = 4;
  const std::string eval = fmt::format(
      "eval --definition {} --baseline --backend cpu --operators {} --trace-set {} --trials 2 --warmup 1 "
      "--iterations 5 --timing-trials 1 --seed 1 --json ",
      definition, quoted(fs::path(KHARNESS_SOURCE_DIR) / "operators"),
      quoted(repeated_set(work, definition, workloads)));
  json report = {
      {"benchmark", "slurm_throughput"},
      {"command", fmt::format("build/bench/bench_slurm_throughput --tasks {} --cpus {} --workloads {}{}",
                              fmt::join(tasks, ","), cpus, workloads, quick ? " --quick" : "")},
      {"node_cpus", cpus},
      {"definition", definition},
      {"workloads", workloads},
      {"timing", "2 correctness trials, 1 timing trial of 1 warm-up + 5 iterations per workload"}};
  // Warm the build and peaks cache, so that no sweep below pays for compiles.
  (void)run_kharness(cluster, cache, eval);
  json local = json::array();
  json reference_seeds;
  for (const char* lanes : {"", "--gpus 0,1"}) {
    const Run r = run_kharness(cluster, cache, eval + lanes);
    if (reference_seeds.is_null()) reference_seeds = seeds_of(r.out);
    local.push_back({{"lanes", *lanes ? 2 : 1},
                     {"seconds", r.seconds},
                     {"passed", passed(r.out)},
                     {"workloads", r.out.is_object() ? r.out["traces"].size() : 0},
                     {"same_seeds_as_local", seeds_of(r.out) == reference_seeds}});
  }
  report["local"] = local;
  json slurm = json::array();
  const fs::path site = work.write("site.json", json{{"shared_dir", (work.path() / "shared").string()},
                                                     {"cache_dir", cache.string()},
                                                     {"poll_seconds", 0.25}}
                                                    .dump());
  for (const std::size_t t : tasks) {
    const Run r = run_kharness(
        cluster, cache, eval + fmt::format("--executor slurm --tasks {} --slurm-config {}", t, quoted(site)));
    const std::size_t swept = r.out.is_object() ? r.out["traces"].size() : 0;
    slurm.push_back({{"tasks", t},
                     {"seconds", r.seconds},
                     {"workloads", swept},
                     {"passed", passed(r.out)},
                     {"workloads_per_second", r.seconds > 0 ? static_cast<double>(swept) / r.seconds : 0},
                     {"same_seeds_as_local", seeds_of(r.out) == reference_seeds},
                     {"exit_code", r.exit_code}});
    std::cerr << fmt::format("tasks {:>2}: {:6.2f} s, {} of {} workloads passed\n", t, r.seconds,
                             passed(r.out), swept);
  }
  report["slurm"] = slurm;
  std::ofstream(out_path) << report.dump(2) << "\n";
  std::cout << report.dump(2) << "\n";
  return 0;
}
