// `kharness ablate` end to end on the CPU backend: two arms of one chat agent on a
// scripted server that answers according to whether the skills reached its prompt (with
// them, the faster kernel; without, a slower one), from the loop tests' deliberately slow
// start. Shown here: the budgets are equal and enforced (tokens, rounds, candidates), the
// arms share seed and inputs but not memory, the report and the dashboard put the arm
// with skills ahead, and an ablation killed with SIGKILL resumes to the same evaluations
// with none lost or repeated.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "archive/archive.h"
#include "archive/controller_log.h"
#include "archive/sqlite_statement.h"
#include "cli/kharness_command.h"
#include "report/dashboard/dashboard.h"
#include "scripted_chat_server.h"
#include "support/temp_dir.h"

extern char** environ;

namespace kh {
namespace {

using agents::test::ScriptedChatServer;
using agents::test::ScriptedReply;
using cli_test::run;
using cli_test::Stderr;

const std::filesystem::path kSource = KHARNESS_SOURCE_DIR;
constexpr const char* kMarker = "KH-ABLATION-SKILL-MARKER";
constexpr std::int64_t kTokensPerAnswer = 8000;  // 5000 in + 3000 out, as the server reports
constexpr std::int64_t kMaxTokens = 16000;

// With the test's skill in the prompt, the faster kernel; without, the slower one.
ScriptedReply answer(const agents::test::ReceivedRequest& request) {
  const bool skills = request.body.find(kMarker) != std::string::npos;
  const std::string text =
      skills ? agents::test::rmsnorm_answer("rows", "faster.cpp", "rmsnorm_fast", "memory_access")
             : agents::test::rmsnorm_answer("sweeps", "slower.cpp", "rmsnorm_slow", "algorithmic");
  return ScriptedReply(200, agents::test::openai_body(text, 5000, 3000));
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> ablate_argv(const std::filesystem::path& archive, const std::string& base_url) {
  const nlohmann::json config = {{"base_url", base_url},
                                 {"model", "scripted"},
                                 {"backoff_s", 0.01},
                                 {"skills_dir", (kSource / "tests/cli/data/ablation_skills").string()}};
  return {"ablate",
          "--definition",
          "rmsnorm_h128",
          "--small",
          "--backend",
          "cpu",
          "--no-reference-timing",
          "--seed",
          "11",
          "--from",
          (kSource / "tests/control/data/rmsnorm_slow_knobs.json").string(),
          "--archive",
          archive.string(),
          "--rounds",
          "2",
          "--max-candidates",
          "4",
          "--max-tokens",
          std::to_string(kMaxTokens),
          "--arm",
          "with-skills:agent=openai,skills=on",
          "--arm",
          "without-skills:agent=openai,skills=off",
          "--agent-config",
          config.dump()};
}

std::string shell_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) line += quoted(a) + " ";
  return line;
}

nlohmann::json run_json(const std::string& args) {
  const auto r = run(args + " --json", Stderr::dropped);
  EXPECT_EQ(r.status, 0) << r.out;
  return nlohmann::json::parse(r.out, nullptr, false);
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

const nlohmann::json& arm_of(const nlohmann::json& list, const std::string& name) {
  for (const auto& a : list) {
    if (a.at("arm") == name) return a;
  }
  static const nlohmann::json none;
  ADD_FAILURE() << "no arm " << name << " in " << list.dump(2);
  return none;
}

void expect_equal_budgets_enforced(const std::filesystem::path& dir, const nlohmann::json& s) {
  ASSERT_EQ(s.at("arms").size(), 2u) << s.dump(2);
  const auto& with = arm_of(s.at("arms"), "with-skills").at("loop");
  const auto& without = arm_of(s.at("arms"), "without-skills").at("loop");
  for (const auto* arm : {&with, &without}) {
    EXPECT_LE(arm->at("tokens").get<std::int64_t>(), kMaxTokens) << arm->dump(2);
    EXPECT_LE(arm->at("rounds").get<std::int64_t>(), 2);
    EXPECT_LE(arm->at("candidates").get<std::int64_t>(), 4);
  }
  // With skills: explore and exploit in round 1 spend the tokens; round 2 never starts.
  EXPECT_EQ(with.at("tokens"), 2 * kTokensPerAnswer);
  EXPECT_EQ(with.at("stopped_by"), "tokens (16000)");
  EXPECT_EQ(with.at("rounds"), 1);
  // Without: no survivor to exploit, so one answer a round, and the rounds run out first.
  EXPECT_EQ(without.at("tokens"), 2 * kTokensPerAnswer);
  EXPECT_EQ(without.at("stopped_by"), "rounds (2)");

  archive::Archive a = archive::Archive::open_existing(dir);
  const std::string id = s.at("ablation");
  const auto manifest = archive::load_manifest(a, "ablation:" + id);
  ASSERT_TRUE(manifest.contains("config"));
  EXPECT_EQ(manifest.at("config").at("budget").at("max_tokens"), kMaxTokens);
  EXPECT_EQ(manifest.at("config").at("seed"), 11);
  EXPECT_EQ(manifest.at("config").at("arms").size(), 2u);
  for (const std::string arm : {"with-skills", "without-skills"}) {
    EXPECT_EQ(archive::load_manifest(a, id + "/" + arm).at("config").at("seed"), 11)
        << "one seed for all arms";
  }
}

void expect_only_the_arm_with_skills_gets_them(const ScriptedChatServer& server, const nlohmann::json& s) {
  std::size_t with = 0, without = 0;
  for (const auto& r : server.requests()) {
    const bool marked = r.body.find(kMarker) != std::string::npos;
    const bool skills_section = r.body.find("## skills.md") != std::string::npos;
    EXPECT_EQ(marked, skills_section) << "the marker reaches the prompt only through skills.md";
    (marked ? with : without) += 1;
  }
  EXPECT_EQ(with, 2u);
  EXPECT_EQ(without, 2u);
  const auto& arms = s.at("arms");
  const auto& w = arm_of(arms, "with-skills").at("loop");
  EXPECT_NE(w.at("best").at("name").get<std::string>().find("rows"), std::string::npos) << w.dump(2);
  EXPECT_GT(w.at("speedup_over_start").get<double>(), 1.5);
  const auto& wo = arm_of(arms, "without-skills").at("loop");
  EXPECT_EQ(wo.at("best").at("content_id"), wo.at("start").at("content_id"));
  EXPECT_TRUE(wo.at("speedup_over_start").is_null());
}

void expect_the_report_puts_skills_ahead(const std::filesystem::path& dir, const nlohmann::json& s) {
  const std::string id = s.at("ablation");
  const nlohmann::json r = run_json("report --archive " + quoted(dir.string()) + " --ablation " + quoted(id));
  ASSERT_EQ(r.at("arms").size(), 2u) << r.dump(2);
  const auto& with = arm_of(r.at("arms"), "with-skills");
  const auto& without = arm_of(r.at("arms"), "without-skills");
  // The arm's best speedup is its promotion's reported figure, the one the loop printed.
  EXPECT_DOUBLE_EQ(with.at("best_speedup").get<double>(),
                   arm_of(s.at("arms"), "with-skills").at("loop").at("speedup_over_start").get<double>());
  EXPECT_DOUBLE_EQ(without.at("best_speedup").get<double>(), 1.0);
  EXPECT_EQ(with.at("spent").at("tokens"), 2 * kTokensPerAnswer);
  // Every candidate is counted once, by the status it ended with: all correct here (the
  // exploit stage re-proposes the fast kernel from the new parent, under a new name).
  for (const auto* arm : {&with, &without}) {
    EXPECT_EQ(arm->at("statuses").at("total"), arm->at("spent").at("candidates")) << arm->dump(2);
    EXPECT_EQ(arm->at("statuses").at("passed"), arm->at("statuses").at("total")) << arm->dump(2);
  }
  EXPECT_EQ(without.at("statuses").at("passed"), 1) << "correct, and slower: evaluated once";
  EXPECT_EQ(with.at("promotions").size(), 1u);
  EXPECT_GT(with.at("fast_p").at("1").get<double>(), without.at("fast_p").at("1").get<double>());
  const auto& pair = r.at("head_to_head").at("pairs").at(0);
  EXPECT_EQ(pair.at("a"), "with-skills");
  EXPECT_EQ(pair.at("b"), "without-skills");
  EXPECT_GT(pair.at("ratio").get<double>(), 1.5) << r.at("head_to_head").dump(2);
  EXPECT_EQ(pair.at("verdict"), "faster") << r.at("head_to_head").dump(2);
  EXPECT_EQ(pair.at("passes").size(), 2u);

  test::TempDir out("kh_ablate_report_");
  const auto md = run("report --archive " + quoted(dir.string()) + " --ablation " + quoted(id) + " --out " +
                      quoted(out.path().string()));
  EXPECT_EQ(md.status, 0) << md.out;
  for (const char* f : {"report.md", "report.json", "budget.svg", "fast_p.svg", "statuses.svg"}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(out.path() / f)) << f;
  }
  report::dashboard::Dashboard d(dir);
  const auto page = d.get("/ablation/" + id, {});
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_NE(page.body.find("with-skills"), std::string::npos);
  EXPECT_NE(page.body.find("faster"), std::string::npos);
  EXPECT_NE(d.get("/", {}).body.find("/ablation/" + id), std::string::npos) << "the index links the ablation";
}

void expect_another_budget_refused(const std::filesystem::path& dir, const std::string& base_url) {
  std::vector<std::string> argv = ablate_argv(dir, base_url);
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--rounds") argv[i + 1] = "3";
  }
  const auto r = run(shell_line(argv));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("was started with another budget"), std::string::npos) << r.out;
}

pid_t spawn_quiet(const std::vector<std::string>& args) {
  std::vector<char*> argv;
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

// Kills an ablation into `b` after its third evaluation, runs the same command again, and
// checks it against `full`, the same ablation run without interruption.
void expect_kill_resumes(const std::filesystem::path& b, const std::string& base_url,
                         const std::filesystem::path& full_dir, const nlohmann::json& full) {
  std::vector<std::string> argv = ablate_argv(b, base_url);
  argv.insert(argv.begin(), KHARNESS_BINARY);
  const pid_t pid = spawn_quiet(argv);
  // Kill it in the middle of the first arm's first round: after its third evaluation.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::exists(b / "index.sqlite") && step_keys(b).size() >= 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the ablation finished before it could be killed";
  const std::size_t before = step_keys(b).size();
  argv.erase(argv.begin());
  const nlohmann::json s = run_json(shell_line(argv));
  EXPECT_TRUE(s.at("resumed").get<bool>());
  std::size_t reused = 0;
  for (const auto& arm : s.at("arms")) reused += arm.at("loop").at("evaluations_reused").get<std::size_t>();
  EXPECT_EQ(reused, before) << "every evaluation recorded before the kill is reused";
  const auto keys = step_keys(b);
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size())
      << "an evaluation was repeated";
  // The same evaluations as the ablation that was never interrupted: nothing lost. The
  // arm with skills proposes the same faster kernel every round, under a new name, so
  // which copy the later stages (confirm, full-2, the final head-to-head) carry on with is
  // a coin flip of the timing noise. So the runs must agree on how many evaluations each
  // stage of each round made and on which candidates were evaluated at all, not on which
  // copy each stage took.
  const auto stages = [](const std::vector<std::string>& v) {
    std::multiset<std::string> out;
    for (const std::string& k : v)
      if (k.find("/final/") == std::string::npos) out.insert(k.substr(0, k.rfind('/')));
    return out;
  };
  const auto candidates = [](const std::vector<std::string>& v) {
    std::set<std::string> out;
    for (const std::string& k : v) out.insert(k.substr(k.rfind('/') + 1));
    return out;
  };
  const auto full_keys = step_keys(full_dir);
  EXPECT_EQ(stages(keys), stages(full_keys));
  EXPECT_EQ(candidates(keys), candidates(full_keys));
  const auto label = [](const nlohmann::json& loop) {
    const std::string name = loop.at("best").at("name").get<std::string>();
    return name.substr(name.rfind('-') + 1);  // the answer's folder: "rows" (faster) or "sweeps"
  };
  for (const std::string arm : {"with-skills", "without-skills"}) {
    EXPECT_EQ(label(arm_of(s.at("arms"), arm).at("loop")), label(arm_of(full.at("arms"), arm).at("loop")))
        << arm;
  }
}

// One test, since every check reads the same ablation and an ablation takes a while.
TEST(AblateCommand, SkillsOnAgainstOffAtEqualBudgetsReportedAndResumable) {
  ScriptedChatServer server(answer);
  test::TempDir tmp("kh_ablate_");
  const auto a = tmp.path() / "a";
  const nlohmann::json s = run_json(shell_line(ablate_argv(a, server.base_url())));
  ASSERT_TRUE(s.is_object() && s.contains("arms")) << s.dump(2);
  {
    SCOPED_TRACE("equal budgets");
    expect_equal_budgets_enforced(a, s);
  }
  {
    SCOPED_TRACE("skills reach one arm");
    expect_only_the_arm_with_skills_gets_them(server, s);
  }
  {
    SCOPED_TRACE("report and dashboard");
    expect_the_report_puts_skills_ahead(a, s);
  }
  {
    SCOPED_TRACE("identity");
    expect_another_budget_refused(a, server.base_url());
  }
  {
    SCOPED_TRACE("kill and resume");
    expect_kill_resumes(tmp.path() / "b", server.base_url(), a, s);
  }
}

}  // namespace
}  // namespace kh
