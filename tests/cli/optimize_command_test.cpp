// `kharness optimize` end to end on the CPU backend: the tuner finds and promotes a
// clearly faster knob setting, replayed wrong and cheating kernels are never promoted,
// and a loop killed with SIGKILL resumes to the same best without losing or repeating
// an evaluation.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "archive/archive.h"
#include "archive/controller_log.h"
#include "archive/decision_check.h"
#include "archive/sqlite_statement.h"
#include "cli/kharness_command.h"
#include "support/temp_dir.h"

extern char** environ;

namespace kh {
namespace {

using cli_test::run;
using cli_test::Stderr;

const std::filesystem::path kSource = KHARNESS_SOURCE_DIR;
const std::string kSlow = (kSource / "tests/control/data/rmsnorm_slow_knobs.json").string();
const std::string kFastName = "rmsnorm_slow_knobs+ROW_PASSES=1,BATCH_PASSES=1";

std::string loop_args(const std::filesystem::path& archive, const std::string& rest) {
  return "optimize --definition rmsnorm_h128 --small --backend cpu --no-reference-timing --archive '" +
         archive.string() + "' " + rest;
}

nlohmann::json run_json(const std::string& args) {
  const auto r = run(args + " --json", Stderr::dropped);
  EXPECT_EQ(r.status, 0) << r.out;
  return nlohmann::json::parse(r.out);
}

std::vector<archive::Decision> decisions(const std::filesystem::path& dir, const nlohmann::json& summary) {
  archive::Archive a = archive::Archive::open_existing(dir);
  return archive::load_decisions(a, summary.at("loop_id").get<std::string>());
}

// Every controller run's step key, as recorded (one per evaluation).
std::vector<std::string> step_keys(const std::filesystem::path& dir) {
  archive::Archive a = archive::Archive::open_existing(dir);
  archive::Statement s = a.db().prepare(
      "SELECT substr(command_line_json, instr(command_line_json, '\"--step\"')) FROM runs WHERE origin = "
      "'controller'");
  std::vector<std::string> keys;
  while (s.step()) keys.push_back(s.column_text(0));
  return keys;
}

// Controller runs whose candidate was compiled by the evaluation itself (a cache miss).
std::int64_t runs_that_compiled(const std::filesystem::path& dir) {
  archive::Archive a = archive::Archive::open_existing(dir);
  archive::Statement s = a.db().prepare(
      "SELECT count(*) FROM runs JOIN builds ON runs.build_id = builds.id WHERE runs.origin = 'controller' "
      "AND "
      "builds.cache_hit = 0");
  s.step();
  return s.column_int(0);
}

struct PhaseRun {
  std::string phase;
  std::uint64_t seed = 0;
  std::int64_t run_id = 0;
};

// Every controller run's phase (from its step key "<loop>/r<n>/<phase>/<content id>") and input
// seed, in the order they ran.
std::vector<PhaseRun> phase_runs(const std::filesystem::path& dir) {
  archive::Archive a = archive::Archive::open_existing(dir);
  archive::Statement s = a.db().prepare(
      "SELECT command_line_json, options_json, id FROM runs WHERE origin = 'controller' ORDER BY id");
  std::vector<PhaseRun> out;
  while (s.step()) {
    const auto argv = nlohmann::json::parse(s.column_text(0));
    const std::string key = argv.back().get<std::string>();
    const std::size_t end = key.rfind('/');
    const std::size_t begin = key.rfind('/', end - 1) + 1;
    out.push_back({key.substr(begin, end - begin),
                   nlohmann::json::parse(s.column_text(1)).at("seed").get<std::uint64_t>(), s.column_int(2)});
  }
  return out;
}

std::vector<std::pair<std::string, std::uint64_t>> phase_seeds(const std::filesystem::path& dir) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const PhaseRun& r : phase_runs(dir)) out.emplace_back(r.phase, r.seed);
  return out;
}

// The run of `phase` (the first, when there are several); a failed expectation when none.
PhaseRun run_of(const std::vector<PhaseRun>& runs, const std::string& phase) {
  for (const PhaseRun& r : runs)
    if (r.phase == phase) return r;
  ADD_FAILURE() << "no run of phase " << phase;
  return {};
}

std::set<std::uint64_t> seeds_of(const std::vector<std::pair<std::string, std::uint64_t>>& runs,
                                 const std::string& phase) {
  std::set<std::uint64_t> seeds;
  for (const auto& [p, seed] : runs)
    if (p == phase) seeds.insert(seed);
  return seeds;
}

// The retained best and the candidate compared with it draw the same inputs in each paired
// sweep; a candidate never meets the same inputs twice, and the repeats differ.
void expect_paired_inputs(const std::filesystem::path& dir) {
  const auto runs = phase_seeds(dir);
  std::set<std::uint64_t> pair_seeds;
  for (const auto& [best, candidate] : {std::pair{"baseline-1", "full-1"}, std::pair{"baseline-2", "full-2"},
                                        std::pair{"baseline-confirm", "confirm"}}) {
    const auto b = seeds_of(runs, best);
    const auto c = seeds_of(runs, candidate);
    ASSERT_EQ(b.size(), 1u) << best;
    EXPECT_EQ(c, b) << candidate << " draws other inputs than " << best;
    pair_seeds.insert(*b.begin());
  }
  const auto gates = seeds_of(runs, "gate");
  if (!gates.empty()) {
    EXPECT_EQ(gates, seeds_of(runs, "baseline-gate")) << "a gate draws other inputs than its baseline";
    pair_seeds.insert(*gates.begin());
  }
  EXPECT_EQ(pair_seeds.size(), gates.empty() ? 3u : 4u) << "two paired sweeps drew the same inputs";
}

TEST(OptimizeCommand, TunerPromotesAClearlyFasterSettingAndSaysWhy) {
  test::TempDir tmp("optimize-tuner");
  const auto archive = tmp.path() / "a";
  // A cache of its own: only the start is compiled by an evaluation; the round builds its
  // candidates side by side first, so their evaluations find them built.
  ASSERT_EQ(setenv("KHARNESS_CACHE_DIR", (tmp.path() / "cache").c_str(), 1), 0);
  // Weighed by latency (--objective mean), as a contest's mean latency: the rule, the gates and the
  // reported speedup all say so.
  const nlohmann::json s =
      run_json(loop_args(archive, "--from '" + kSlow + "' --rounds 1 --seed 7 --objective mean"));
  unsetenv("KHARNESS_CACHE_DIR");
  EXPECT_EQ(runs_that_compiled(archive), 1);
  EXPECT_EQ(s.at("best").at("name"), kFastName);
  ASSERT_EQ(s.at("decisions").size(), 1u);
  EXPECT_EQ(s.at("decisions")[0].at("kind"), "promote");
  EXPECT_GT(s.at("speedup_over_start").get<double>(), 1.5);

  const auto ds = decisions(archive, s);
  ASSERT_EQ(ds.size(), 1u);
  const auto& e = ds[0].evidence;
  const auto& p = e.at("promotion");
  EXPECT_TRUE(p.at("promote").get<bool>()) << p.dump(2);
  ASSERT_EQ(p.at("repeats").size(), 2u);
  for (const auto& r : p.at("repeats")) {
    EXPECT_GT(r.at("speedup").get<double>(), 1 + p.at("noise").get<double>());
  }
  EXPECT_TRUE(p.at("confirmed").get<bool>());
  EXPECT_EQ(e.at("promotion_rule").at("objective"), "mean");
  EXPECT_EQ(e.at("speedup").at("objective"), "mean");
  // The round's record, which supervision and memory read, is in the same means as the verdict.
  const auto& record = e.at("round_record");
  EXPECT_EQ(record.at("objective"), "mean");
  // The contender is the candidate the full sweep found fastest.
  double contender_speedup = 0;
  for (const auto& c : e.at("candidates")) {
    if (!c.at("full_speedup").is_null())
      contender_speedup = std::max(contender_speedup, c.at("full_speedup").get<double>());
  }
  EXPECT_NEAR(record.at("speedup").get<double>(), contender_speedup, 1e-9) << e.at("candidates").dump(2);
  // The record and the memory name the technique the promoted candidate claimed, beside the
  // direction the controller asked for.
  std::string promoted_family;
  for (const auto& c : e.at("candidates"))
    if (c.at("name") == kFastName) promoted_family = c.at("family").get<std::string>();
  ASSERT_FALSE(promoted_family.empty()) << e.at("candidates").dump(2);
  EXPECT_EQ(record.at("candidate_family"), promoted_family);
  {
    archive::Archive a = archive::Archive::open_existing(archive);
    archive::Statement m = a.db().prepare("SELECT candidate_family, outcome FROM hypothesis_outcomes");
    ASSERT_TRUE(m.step());
    EXPECT_EQ(m.column_text(0), promoted_family);
    EXPECT_EQ(m.column_text(1), "promoted");
  }
  EXPECT_EQ(e.at("paired_baseline").at("repeats").size(), 2u);
  EXPECT_EQ(e.at("paired_baseline").at("confirm").at("protocol"), "robust");
  EXPECT_EQ(e.at("stages").at("explore").at("families"), 3);
  EXPECT_TRUE(e.at("stages").at("explore").at("within_bounds").get<bool>());
  EXPECT_EQ(ds[0].baseline, s.at("start").at("content_id"));
  EXPECT_EQ(ds[0].solution, s.at("best").at("content_id"));
  expect_paired_inputs(archive);
}

// On every workload of the operator (five, three regimes) the gate runs on the representatives
// against a baseline of its own, and each of the round's four comparisons is paired on its inputs.
// With --rebaseline-after 0 the retained best is measured again right after the gate and after
// full-1 (as it is when they run more than a minute after its sweep), and each is compared with
// that sweep: the one next to it in time.
TEST(OptimizeCommand, EveryComparisonTimesBothSidesOnTheSameInputs) {
  test::TempDir tmp("optimize-paired");
  const auto archive = tmp.path() / "a";
  const nlohmann::json s =
      run_json("optimize --definition rmsnorm_h128 --backend cpu --no-reference-timing --archive '" +
               archive.string() + "' --from '" + kSlow +
               "' --rounds 1 --max-candidates 1 --seed 7 --objective mean --rebaseline-after 0");
  ASSERT_EQ(s.at("decisions").size(), 1u);
  EXPECT_EQ(s.at("decisions")[0].at("kind"), "promote") << s.dump(2);
  const auto seeds = phase_seeds(archive);
  ASSERT_EQ(seeds_of(seeds, "gate").size(), 1u) << "the representatives are not every workload: a gate runs";
  expect_paired_inputs(archive);
  const auto runs = phase_runs(archive);
  const PhaseRun gate = run_of(runs, "gate"), full = run_of(runs, "full-1");
  const PhaseRun gate_again = run_of(runs, "baseline-gate-explore"),
                 full_again = run_of(runs, "baseline-1-explore");
  EXPECT_EQ(gate_again.seed, gate.seed);
  EXPECT_EQ(full_again.seed, full.seed);
  EXPECT_EQ(gate_again.run_id, gate.run_id + 1) << "measured again right after the gate";
  EXPECT_EQ(full_again.run_id, full.run_id + 1) << "measured again right after full-1";

  const auto ds = decisions(archive, s);
  ASSERT_EQ(ds.size(), 1u);
  const auto& e = ds[0].evidence;
  EXPECT_EQ(e.at("paired_baseline").at("gate").at("workloads").size(), 3u) << e.at("paired_baseline").dump(2);
  ASSERT_EQ(e.at("candidates").size(), 1u);
  const auto& c = e.at("candidates")[0];
  EXPECT_EQ(c.at("gate_baseline_run"), gate_again.run_id);
  EXPECT_EQ(c.at("full_baseline_run"), full_again.run_id);
  // The round's record, which supervision and memory read, weighs the same two sweeps.
  EXPECT_NEAR(e.at("round_record").at("speedup").get<double>(), c.at("full_speedup").get<double>(), 1e-9);
  // The promotion weighed full-1 against the sweep beside it; baseline-1 stays on the record.
  EXPECT_EQ(e.at("paired_baseline").at("repeats")[0].at("run_id"), full_again.run_id);
  EXPECT_EQ(e.at("paired_baseline").at("baseline_1").at("run_id"), run_of(runs, "baseline-1").run_id);
  ASSERT_EQ(e.at("paired_baseline").at("rebaselined").size(), 2u);
  EXPECT_EQ(e.at("promotion_rule").at("rebaseline_after_s"), 0.0);
  // The archive's own check recomputes the first repeat's speedup from those sweeps.
  archive::Archive a = archive::Archive::open_existing(archive);
  EXPECT_TRUE(archive::loop_decision_problems(a.db(), s.at("loop_id").get<std::string>()).empty());
}

TEST(OptimizeCommand, AnUnknownObjectiveIsAUsageError) {
  test::TempDir tmp("optimize-objective");
  const auto r = run(loop_args(tmp.path() / "a", "--rounds 1 --objective median"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--objective"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "a"))
      << "the archive is made only once the command line holds";
}

// A solution JSON for rmsnorm_h128 made of one of tests/eval's gallery kernels.
std::string gallery_solution(const std::filesystem::path& dir, const std::string& file) {
  const auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const auto gallery = kSource / "tests/eval/solutions/rmsnorm_h128";
  nlohmann::json j = {{"name", std::filesystem::path(file).stem().string()},
                      {"definition", "rmsnorm_h128"},
                      {"author", "kharness tests"},
                      {"spec",
                       {{"language", "cpp"},
                        {"target_hardware", {"cpu"}},
                        {"entry_point", file + "::rmsnorm"},
                        {"binding", "kharness"}}},
                      {"sources",
                       {{{"path", file}, {"content", read(gallery / file)}},
                        {{"path", "rmsnorm_common.h"}, {"content", read(gallery / "rmsnorm_common.h")}}}}};
  const auto path = dir / (j["name"].get<std::string>() + ".json");
  std::ofstream(path) << j.dump(2);
  return path.string();
}

TEST(OptimizeCommand, ReplayedWrongAndCheatingCandidatesAreNotPromoted) {
  test::TempDir tmp("optimize-replay");
  const auto archive = tmp.path() / "a";
  const std::string wrong = gallery_solution(tmp.path(), "wrong.cpp");
  const std::string cheat = gallery_solution(tmp.path(), "modifies_input.cpp");
  const std::string start = (kSource / "examples/solutions/rmsnorm_h128_cpu.json").string();
  const nlohmann::json s =
      run_json(loop_args(archive, "--from '" + start + "' --agent replay --replay '" + wrong +
                                      "' --replay '" + cheat + "' --rounds 1 --seed 5"));
  EXPECT_EQ(s.at("best").at("content_id"), s.at("start").at("content_id"));
  const auto ds = decisions(archive, s);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_NE(ds[0].kind, archive::DecisionKind::promote);
  std::set<std::string> statuses;
  for (const auto& c : ds[0].evidence.at("candidates"))
    statuses.insert(c.at("gate").at("workloads")[0].at("status"));
  EXPECT_EQ(statuses, (std::set<std::string>{"INCORRECT_NUMERICAL", "REWARD_HACK"}));
}

// Every step's "on N workload(s)" line is closed by one that says how many passed, their mean
// latency and how long the step took, so a user watching a long loop sees where the time goes.
TEST(OptimizeCommand, EveryStepSaysHowItEndedAndHowLongItTook) {
  test::TempDir tmp("optimize-step-lines");
  const std::string wrong = gallery_solution(tmp.path(), "wrong.cpp");
  const std::string start = (kSource / "examples/solutions/rmsnorm_h128_cpu.json").string();
  const auto r = run(loop_args(tmp.path() / "a", "--from '" + start + "' --agent replay --replay '" + wrong +
                                                     "' --rounds 1 --seed 5"));
  ASSERT_EQ(r.status, 0) << r.out;
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::regex began(R"(^  (\S+) (\S+) on (\d+) workload\(s\), .*)");
  std::size_t steps = 0, wrong_steps = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, began)) continue;
    ++steps;
    const std::regex ended("^  " + m[1].str() + " " + m[2].str() + ": (\\d+)/" + m[3].str() +
                           " passed(, mean [0-9.e+-]+ ms)? in [0-9]+\\.[0-9] s.*");
    const auto closing = std::find_if(lines.begin() + static_cast<std::ptrdiff_t>(i) + 1, lines.end(),
                                      [&](const std::string& l) { return std::regex_match(l, ended); });
    ASSERT_NE(closing, lines.end()) << "no closing line for: " << lines[i] << "\n" << r.out;
    std::smatch c;
    ASSERT_TRUE(std::regex_match(*closing, c, ended));
    if (m[2].str() == "wrong") {
      ++wrong_steps;
      EXPECT_EQ(c[1].str(), "0") << *closing;  // a wrong kernel passes nothing
      EXPECT_FALSE(c[2].matched) << "no latency for a kernel that passed nothing: " << *closing;
    }
  }
  EXPECT_GE(steps, 2u) << r.out;  // the start's sweep and the candidate's gate at least
  EXPECT_GE(wrong_steps, 1u) << r.out;
}

// Two agents: the first explores, the second exploits. The tuner finds the fast setting
// in explore; replay's wrong kernel in exploit fails; the fast setting is promoted.
TEST(OptimizeCommand, FirstAgentExploresSecondExploits) {
  test::TempDir tmp("optimize-two-agents");
  const auto archive = tmp.path() / "a";
  const std::string wrong = gallery_solution(tmp.path(), "wrong.cpp");
  const nlohmann::json s = run_json(loop_args(
      archive, "--from '" + kSlow + "' --agent tuner,replay --replay '" + wrong + "' --rounds 1 --seed 7"));
  const auto ds = decisions(archive, s);
  ASSERT_EQ(ds.size(), 1u);
  const auto& stages = ds[0].evidence.at("stages");
  EXPECT_EQ(stages.at("explore").at("agent"), "tuner") << stages.dump(2);
  EXPECT_EQ(stages.at("exploit").at("agent"), "replay") << stages.dump(2);
  EXPECT_EQ(s.at("best").at("name"), kFastName);
}

pid_t spawn_quiet(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

TEST(OptimizeCommand, KilledMidRoundItResumesWithNothingLostOrRepeated) {
  test::TempDir tmp("optimize-kill");
  const auto archive = tmp.path() / "a";
  const pid_t pid = spawn_quiet({KHARNESS_BINARY, "optimize", "--definition", "rmsnorm_h128", "--small",
                                 "--backend", "cpu", "--no-reference-timing", "--archive", archive.string(),
                                 "--from", kSlow, "--rounds", "2", "--seed", "11"});
  // Kill it in the middle of round 1: after its fourth evaluation was recorded.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::exists(archive / "index.sqlite") && step_keys(archive).size() >= 4) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the loop finished before it could be killed";
  const std::size_t before = step_keys(archive).size();
  ASSERT_LT(before, 9u);

  const std::string args = loop_args(archive, "--from '" + kSlow + "' --rounds 2 --seed 11");
  const nlohmann::json s = run_json(args);
  EXPECT_TRUE(s.at("resumed").get<bool>());
  EXPECT_EQ(s.at("best").at("name"), kFastName);
  EXPECT_EQ(s.at("evaluations_reused").get<std::size_t>(), before);
  const auto keys = step_keys(archive);
  // Round 1: baseline, 3 candidates, paired repeat 2 of both, confirmation of both;
  // round 2: the baseline, and no untried setting is left.
  EXPECT_EQ(keys.size(), 9u);
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size())
      << "an evaluation was repeated";
  const auto ds = decisions(archive, s);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].round, 1);
  EXPECT_EQ(ds[0].kind, archive::DecisionKind::promote);
  EXPECT_EQ(ds[1].round, 2);

  const nlohmann::json again = run_json(args);  // finished: nothing left to do or measure
  EXPECT_EQ(again.at("best").at("content_id"), s.at("best").at("content_id"));
  EXPECT_EQ(again.at("evaluations_measured"), 0);
  EXPECT_EQ(again.at("rounds_this_run"), 0);
}

}  // namespace
}  // namespace kh
