// The timing `kharness optimize` measures under. An operator whose contest timed it more
// lightly than the default (operator.json `timing`, as GDN prefill's 1 warm-up and 5
// iterations) still gets at least 10 warm-ups and 50 iterations in the loop, whose
// decisions rest on gains of a few percent; flags on the command line still win, and
// `kharness eval` keeps the contest's timing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "archive/sqlite_statement.h"
#include "cli/kharness_command.h"
#include "support/temp_dir.h"

namespace kh {
namespace {

using cli_test::run;
using cli_test::Stderr;

const std::filesystem::path kSource = KHARNESS_SOURCE_DIR;
const std::string kSlow = (kSource / "tests/control/data/rmsnorm_slow_knobs.json").string();

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// A copy of rmsnorm_h128's operator folder whose operator.json times it as the contest
// times GDN prefill.
std::filesystem::path lightly_timed_operators(const std::filesystem::path& dir) {
  const auto op = dir / "rmsnorm_h128";
  std::filesystem::create_directories(dir);
  std::filesystem::copy(kSource / "operators/rmsnorm_h128", op, std::filesystem::copy_options::recursive);
  nlohmann::json manifest = nlohmann::json::parse(std::ifstream(op / "operator.json"));
  manifest["timing"] = {{"warmup", 1}, {"iterations", 5}};
  std::ofstream(op / "operator.json") << manifest.dump(2);
  return dir;
}

struct TimedRun {
  std::string protocol;
  int warmup = 0;
  int iterations = 0;
};

std::vector<TimedRun> controller_runs(const std::filesystem::path& dir) {
  archive::Archive a = archive::Archive::open_existing(dir);
  archive::Statement s =
      a.db().prepare("SELECT protocol, protocol_json FROM runs WHERE origin = 'controller' ORDER BY id");
  std::vector<TimedRun> runs;
  while (s.step()) {
    const nlohmann::json p = nlohmann::json::parse(s.column_text(1));
    runs.push_back({s.column_text(0), p.at("warmup").get<int>(), p.value("iterations", 0)});  // robust: none
  }
  return runs;
}

// The controller runs of one loop over the lightly timed rmsnorm_h128, with `flags` added.
std::vector<TimedRun> loop_runs(const test::TempDir& tmp, const std::string& flags) {
  const auto operators = lightly_timed_operators(tmp.path() / "ops");
  const auto archive = tmp.path() / "a";
  const auto r = run(
      "optimize --definition rmsnorm_h128 --backend cpu --no-reference-timing --operators " +
          quoted(operators.string()) + " --archive " + quoted(archive.string()) + " --from " + quoted(kSlow) +
          " --rounds 1 --max-candidates 1 --seed 7 --robust-timeout 1 --trials 1 " + flags + " --json",
      Stderr::dropped);
  EXPECT_EQ(r.status, 0) << r.out;
  return r.status == 0 ? controller_runs(archive) : std::vector<TimedRun>{};
}

TEST(OptimizeTiming, AContestTimingLighterThanTheDefaultDoesNotLightenTheLoop) {
  test::TempDir tmp("optimize-timing");
  const std::vector<TimedRun> runs = loop_runs(tmp, "");
  ASSERT_FALSE(runs.empty());
  int official = 0;
  for (const TimedRun& t : runs) {
    EXPECT_EQ(t.warmup, 10) << t.protocol;
    if (t.protocol != "official") continue;
    ++official;
    EXPECT_EQ(t.iterations, 50);
  }
  EXPECT_GT(official, 0);
}

TEST(OptimizeTiming, FlagsStillSetTheLoopsTiming) {
  test::TempDir tmp("optimize-timing-flags");
  const std::vector<TimedRun> runs = loop_runs(tmp, "--warmup 2 --iterations 7");
  ASSERT_FALSE(runs.empty());
  for (const TimedRun& t : runs) {
    EXPECT_EQ(t.warmup, 2) << t.protocol;
    if (t.protocol == "official") {
      EXPECT_EQ(t.iterations, 7);
    }
  }
}

TEST(OptimizeTiming, EvalKeepsTheContestTiming) {
  test::TempDir tmp("eval-contest-timing");
  const auto operators = lightly_timed_operators(tmp.path() / "ops");
  const auto r =
      run("eval --definition rmsnorm_h128 --baseline --backend cpu --no-reference-timing --trials 1 "
          "--timing-trials 1 --operators " +
              quoted(operators.string()) + " --json",
          Stderr::dropped);
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j.at("traces").empty());
  for (const nlohmann::json& t : j.at("traces")) {
    const nlohmann::json& p = t.at("evaluation").at("kharness").at("protocol");
    EXPECT_EQ(p.at("warmup"), 1);
    EXPECT_EQ(p.at("iterations"), 5);
  }
}

}  // namespace
}  // namespace kh
