// A candidate that kills or freezes the orchestrator cannot halt the loop. Each test
// first shows the attack working (the loop dies, or stops), then that the loop goes on:
// the candidate is recorded as failed with a log saying the orchestrator died (or was
// stopped) under it, every round ends in one decision, and a solution that does it twice
// is banned from the loop.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "archive/archive.h"
#include "archive/controller_log.h"
#include "archive/sqlite_statement.h"
#include "support/temp_dir.h"

extern char** environ;

namespace kh {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = KHARNESS_SOURCE_DIR;
const fs::path kGallery = kSource / "tests/eval/solutions/rmsnorm_h128";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// An rmsnorm_h128 solution: `rows` normalisations of every row (1 is honest speed, 4 is
// slow), preceded by `kill(getppid(), SIGNAL)` when the file `trigger` exists ("" never).
std::string solution(const fs::path& dir, const std::string& name, int rows, const std::string& signal,
                     const std::string& trigger) {
  std::string body =
      "#include <signal.h>\n#include <sys/stat.h>\n#include <unistd.h>\n"
      "#include \"rmsnorm_common.h\"\n"
      "void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {\n";
  if (!trigger.empty()) {
    // Looked at once per worker (a file system call on every call would cost more than
    // the kernel), and acted on once: a stopped orchestrator continued by a person is not
    // stopped again.
    body += "  static bool armed = [] { struct stat st; return stat(\"" + trigger +
            "\", &st) == 0; }();\n  if (armed) {\n    armed = false;\n    kill(getppid(), " + signal +
            ");\n  }\n";
  }
  // The barrier keeps the compiler from merging the passes: `rows` is the work done.
  body += "  for (int i = 0; i < " + std::to_string(rows) +
          "; ++i) {\n    rmsnorm_rows(x, w, y, 0, x->shape[0]);\n    asm volatile(\"\" ::: \"memory\");\n  "
          "}\n}\n";
  const nlohmann::json j = {
      {"name", name},
      {"definition", "rmsnorm_h128"},
      {"author", "kharness tests"},
      {"spec",
       {{"language", "cpp"},
        {"target_hardware", {"cpu"}},
        {"entry_point", name + ".cpp::rmsnorm"},
        {"binding", "kharness"}}},
      {"sources",
       {{{"path", name + ".cpp"}, {"content", body}},
        {{"path", "rmsnorm_common.h"}, {"content", read(kGallery / "rmsnorm_common.h")}}}}};
  const fs::path path = dir / (name + ".json");
  std::ofstream(path) << j.dump(2);
  return path.string();
}

struct Exit {
  int raw = 0;
  std::string out;  // stdout
  [[nodiscard]] bool killed() const { return WIFSIGNALED(raw) && WTERMSIG(raw) == SIGKILL; }
  [[nodiscard]] int code() const { return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1; }
};

// Starts kharness with stdout to `out_file` and stderr to `out_file`.err.
pid_t start(const std::vector<std::string>& args, const fs::path& out_file) {
  std::vector<std::string> all = {KHARNESS_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, (out_file.string() + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

Exit finish(pid_t pid, const fs::path& out_file) {
  Exit e;
  waitpid(pid, &e.raw, 0);
  e.out = read(out_file);
  return e;
}

std::vector<std::string> loop_args(const fs::path& archive, const std::string& from,
                                   const std::string& replay, int rounds) {
  return {"optimize", "--definition", "rmsnorm_h128", "--small", "--backend", "cpu", "--no-reference-timing",
          "--archive", archive.string(), "--from", from, "--agent", "replay", "--replay", replay, "--rounds",
          std::to_string(rounds), "--seed", "3", "--json",
          // The attacks need kharness's own rights, which the jail takes away (stopping
          // them outright: tests/eval/hostile_*): reproduce them without the jail.
          "--sandbox", "off"};
}

Exit run_loop(const std::vector<std::string>& args, const fs::path& out) {
  return finish(start(args, out), out);
}

// Every trace log of the loop's runs of the solution named `name`.
std::vector<std::string> trace_logs(const fs::path& archive, const std::string& name) {
  archive::Archive a = archive::Archive::open_existing(archive);
  archive::Statement s = a.db().prepare(
      "SELECT json_extract(line, '$.evaluation.log') FROM traces WHERE solution = ? AND run_id IS NOT NULL");
  s.bind(1, name);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.column_text(0));
  return out;
}

std::string err_of(const fs::path& out) { return read(out.string() + ".err"); }

TEST(OptimizeLiveness, ACandidateThatKillsTheOrchestratorIsRecordedAsFailedAndTheLoopGoesOn) {
  test::TempDir tmp("liveness-kill");
  const fs::path archive = tmp / "a";
  const std::string start_file = solution(tmp.path(), "honest", 1, "SIGKILL", "");
  const std::string killer = solution(tmp.path(), "killer", 1, "SIGKILL", "/");
  const auto args = loop_args(archive, start_file, killer, 2);
  // The attack: the candidate kills kharness before any verdict.
  const Exit first = run_loop(args, tmp / "1.out");
  ASSERT_TRUE(first.killed()) << "the killer did not kill the orchestrator: " << first.out
                              << err_of(tmp / "1.out");
  // The next run records the killer as failed without running it again, and finishes.
  const Exit second = run_loop(args, tmp / "2.out");
  ASSERT_EQ(second.code(), 0) << err_of(tmp / "2.out");
  const nlohmann::json s = nlohmann::json::parse(second.out);
  EXPECT_EQ(s.at("best").at("name"), "honest");
  ASSERT_EQ(s.at("decisions").size(), 2u);
  EXPECT_EQ(s.at("decisions")[0].at("round"), 1);
  EXPECT_EQ(s.at("decisions")[1].at("round"), 2);
  EXPECT_NE(s.at("decisions")[0].at("kind"), "promote");
  const auto logs = trace_logs(archive, "killer");
  ASSERT_FALSE(logs.empty());
  for (const std::string& log : logs) EXPECT_EQ(log.rfind("ORCHESTRATOR_DIED", 0), 0u) << log;
  archive::Archive a = archive::Archive::open_existing(archive);
  archive::Statement st =
      a.db().prepare("SELECT count(*) FROM traces WHERE solution = 'killer' AND status = 'PASSED'");
  st.step();
  EXPECT_EQ(st.column_int(0), 0);
}

TEST(OptimizeLiveness, APromotedSolutionThatKillsTwiceIsBannedAndTheBestItReplacedReturns) {
  test::TempDir tmp("liveness-ban");
  const fs::path archive = tmp / "a";
  const fs::path trigger = tmp / "go";
  const std::string slow = solution(tmp.path(), "slow", 8, "SIGKILL", "");
  const std::string sleeper = solution(tmp.path(), "sleeper", 1, "SIGKILL", trigger.string());
  // Round 1: the sleeper behaves, is eight times faster, and is promoted.
  const Exit round1 = run_loop(loop_args(archive, slow, sleeper, 1), tmp / "1.out");
  ASSERT_EQ(round1.code(), 0) << err_of(tmp / "1.out");
  const nlohmann::json promoted = nlohmann::json::parse(round1.out).at("best");
  ASSERT_EQ(promoted.at("name"), "sleeper");
  // Then it kills the orchestrator whenever it runs: as round 2's paired baseline.
  std::ofstream(trigger) << "now\n";
  const auto args = loop_args(archive, slow, sleeper, 2);
  const Exit killed1 = run_loop(args, tmp / "2.out");
  ASSERT_TRUE(killed1.killed()) << err_of(tmp / "2.out");
  // The retained best gets a second chance (a person's kill -9 lands on whatever runs)...
  const Exit killed2 = run_loop(args, tmp / "3.out");
  ASSERT_TRUE(killed2.killed()) << err_of(tmp / "3.out");
  // ...and is banned after its second strike: the slow start is the retained best again.
  const Exit resumed = run_loop(args, tmp / "4.out");
  ASSERT_EQ(resumed.code(), 0) << err_of(tmp / "4.out");
  const nlohmann::json s = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(s.at("best").at("name"), "slow");
  ASSERT_EQ(s.at("decisions").size(), 2u);
  EXPECT_EQ(s.at("decisions")[1].at("round"), 2);
  EXPECT_EQ(s.at("decisions")[1].at("baseline").get<std::string>().substr(0, 12),
            s.at("start").at("content_id").get<std::string>().substr(0, 12));
  EXPECT_EQ(s.at("banned"), nlohmann::json::array({promoted.at("content_id")}));
  EXPECT_TRUE(s.at("speedup_over_start").is_null()) << "a banned promotion still counts: " << s;
}

// Candidates run side by side (--gpus 0,1: two CPU lanes) are marked as one batch: the
// death of the orchestrator under them cannot be pinned on one, so neither fails for it;
// each runs again alone, and only the killer is recorded as failed.
TEST(OptimizeLiveness, ADeathAmongCandidatesRunSideBySideFailsOnlyTheKiller) {
  test::TempDir tmp("liveness-batch");
  const fs::path archive = tmp / "a";
  const std::string slow = solution(tmp.path(), "slow", 4, "SIGKILL", "");
  const std::string killer = solution(tmp.path(), "killer", 1, "SIGKILL", "/");
  const std::string innocent = solution(tmp.path(), "innocent", 1, "SIGKILL", "");
  std::vector<std::string> args = loop_args(archive, slow, killer, 1);
  args.insert(args.end(), {"--replay", innocent, "--gpus", "0,1"});
  // The attack needs kharness's own rights: a jailed worker cannot signal its parent.
  if (std::find(args.begin(), args.end(), "--sandbox") == args.end())
    args.insert(args.end(), {"--sandbox", "off"});
  const Exit first = run_loop(args, tmp / "0.out");
  ASSERT_TRUE(first.killed()) << "the killer did not kill the orchestrator: " << err_of(tmp / "0.out");
  EXPECT_NE(err_of(tmp / "0.out").find(" innocent on "), std::string::npos)
      << "the candidates did not run side by side: " << err_of(tmp / "0.out");
  // Alone, the killer kills once more (its own strike); then the loop finishes.
  Exit last = first;
  int runs = 1;
  for (; runs < 4 && last.code() != 0; ++runs) last = run_loop(args, tmp / (std::to_string(runs) + ".out"));
  ASSERT_EQ(last.code(), 0) << err_of(tmp / (std::to_string(runs - 1) + ".out"));
  for (const std::string& log : trace_logs(archive, "killer"))
    EXPECT_EQ(log.rfind("ORCHESTRATOR_DIED", 0), 0u) << log;
  const auto innocent_logs = trace_logs(archive, "innocent");
  ASSERT_FALSE(innocent_logs.empty()) << "the innocent candidate was never evaluated";
  for (const std::string& log : innocent_logs) EXPECT_EQ(log.find("ORCHESTRATOR_"), std::string::npos) << log;
  archive::Archive a = archive::Archive::open_existing(archive);
  archive::Statement st =
      a.db().prepare("SELECT count(*) FROM traces WHERE solution = 'innocent' AND status = 'PASSED'");
  st.step();
  EXPECT_GT(st.column_int(0), 0) << "the innocent candidate failed for the killer's death";
}

char process_state(pid_t pid) {
  const std::string stat = read("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? '?' : stat[close + 2];
}

TEST(OptimizeLiveness, ACandidateThatStopsTheOrchestratorFailsOnceItIsContinued) {
  test::TempDir tmp("liveness-stop");
  const fs::path archive = tmp / "a";
  const std::string start_file = solution(tmp.path(), "honest", 1, "SIGKILL", "");
  const std::string stopper = solution(tmp.path(), "stopper", 1, "SIGSTOP", "/");
  const pid_t pid = start(loop_args(archive, start_file, stopper, 1), tmp / "1.out");
  // The attack: the orchestrator freezes, and with it every time limit it enforces.
  bool stopped = false;
  for (int i = 0; i < 1200 && !stopped; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stopped = process_state(pid) == 'T';
  }
  ASSERT_TRUE(stopped) << "the orchestrator was never stopped";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(process_state(pid), 'T') << "it continued by itself";
  kill(pid, SIGCONT);  // a person notices and continues it (or kills it: the kill test)
  const Exit e = finish(pid, tmp / "1.out");
  ASSERT_EQ(e.code(), 0) << err_of(tmp / "1.out");
  const nlohmann::json s = nlohmann::json::parse(e.out);
  EXPECT_EQ(s.at("best").at("name"), "honest");
  ASSERT_EQ(s.at("decisions").size(), 1u);
  const auto logs = trace_logs(archive, "stopper");
  ASSERT_FALSE(logs.empty());
  for (const std::string& log : logs) EXPECT_EQ(log.rfind("ORCHESTRATOR_STOPPED", 0), 0u) << log;
}

TEST(OptimizeLiveness, AnAgentCommandThatKillsTheOrchestratorIsNotAskedAgain) {
  test::TempDir tmp("liveness-agent");
  const std::vector<std::string> args = {"optimize",
                                         "--definition",
                                         "rmsnorm_h128",
                                         "--small",
                                         "--backend",
                                         "cpu",
                                         "--no-reference-timing",
                                         "--archive",
                                         (tmp / "a").string(),
                                         "--agent",
                                         "cli",
                                         "--agent-config",
                                         R"({"command": "kill -9 $PPID"})",
                                         "--rounds",
                                         "1",
                                         "--seed",
                                         "3",
                                         "--json",
                                         "--sandbox",
                                         "off"};
  const Exit first = run_loop(args, tmp / "1.out");
  ASSERT_TRUE(first.killed()) << "the agent's command did not kill the orchestrator: "
                              << err_of(tmp / "1.out");
  const Exit second = run_loop(args, tmp / "2.out");
  ASSERT_EQ(second.code(), 0) << err_of(tmp / "2.out");
  const nlohmann::json s = nlohmann::json::parse(second.out);
  ASSERT_EQ(s.at("decisions").size(), 1u);
  EXPECT_NE(err_of(tmp / "2.out").find("agent cli not asked again"), std::string::npos)
      << err_of(tmp / "2.out");
}

}  // namespace
}  // namespace kh
