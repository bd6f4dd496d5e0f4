// A candidate that rewrites the archive's figures. Without a sandbox it can: it finds
// the archive in its parent's command line and, with SQLite, makes the paired baseline
// four times slower. Each test runs that candidate, checks whether the edit landed, and
// shows the outcome: the loop never promotes on the edited figures, `archive verify
// --deep` names the edited rows, and `report` refuses to rank the definition. When a
// sandbox keeps the candidate away from the archive, the edit does not land and the
// outcome must hold all the more.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "archive/archive.h"
#include "archive/archive_check.h"
#include "cli/kharness_command.h"
#include "support/temp_dir.h"

namespace kh {
namespace {

namespace fs = std::filesystem;
const fs::path kGallery = fs::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The honest start: one pass over each row.
std::string honest(const fs::path& dir) {
  const nlohmann::json j = {
      {"name", "honest"},
      {"definition", "rmsnorm_h128"},
      {"author", "kharness tests"},
      {"spec",
       {{"language", "cpp"},
        {"target_hardware", {"cpu"}},
        {"entry_point", "honest.cpp::rmsnorm"},
        {"binding", "kharness"}}},
      {"sources",
       {{{"path", "honest.cpp"},
         {"content",
          "#include \"rmsnorm_common.h\"\nvoid rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, "
          "kh_stream_t) {\n  rmsnorm_rows(x, w, y, 0, x->shape[0]);\n}\n"}},
        {{"path", "rmsnorm_common.h"}, {"content", read(kGallery / "rmsnorm_common.h")}}}}};
  std::ofstream(dir / "honest.json") << j.dump(2);
  return (dir / "honest.json").string();
}

// Twice the work of honest, and on its first call it multiplies honest's archived
// latencies by 4 (so that it looks twice as fast); with `kill_after`, it then kills the
// orchestrator, so that the resumed loop reads the edited figures back.
std::string tamperer(const fs::path& dir, bool kill_after) {
  std::string src = R"(#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>
#include <fstream>
#include <iterator>
#include <string>
#include "rmsnorm_common.h"
namespace {
std::string archive_of_parent() {
  std::ifstream in("/proc/" + std::to_string(getppid()) + "/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), {});
  std::string previous;
  for (std::size_t at = 0; at < all.size();) {
    std::size_t end = all.find('\0', at);
    if (end == std::string::npos) end = all.size();
    const std::string arg = all.substr(at, end - at);
    if (previous == "--archive") return arg;
    previous = arg;
    at = end + 1;
  }
  return "";
}
void tamper() {
  void* lib = dlopen("libsqlite3.so.0", RTLD_NOW);
  if (lib == nullptr) return;
  using open_fn = int (*)(const char*, void**);
  using exec_fn = int (*)(void*, const char*, void*, void*, char**);
  using close_fn = int (*)(void*);
  auto open = reinterpret_cast<open_fn>(dlsym(lib, "sqlite3_open"));
  auto exec = reinterpret_cast<exec_fn>(dlsym(lib, "sqlite3_exec"));
  auto close = reinterpret_cast<close_fn>(dlsym(lib, "sqlite3_close"));
  void* db = nullptr;
  if (open((archive_of_parent() + "/index.sqlite").c_str(), &db) != 0) return;
  exec(db, "PRAGMA busy_timeout = 10000; UPDATE traces SET latency_ms = latency_ms * 4, speedup = speedup / 4 "
           "WHERE solution = 'honest'", nullptr, nullptr, nullptr);
  close(db);
}
}  // namespace
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {
  static bool done = false;
  if (!done) {
    done = true;
    tamper();
    KILL
  }
  for (int i = 0; i < 2; ++i) {
    rmsnorm_rows(x, w, y, 0, x->shape[0]);
    asm volatile("" ::: "memory");  // two passes of work, not merged into one
  }
}
)";
  src.replace(src.find("KILL"), 4, kill_after ? "kill(getppid(), SIGKILL);" : "");
  const nlohmann::json j = {
      {"name", "tamperer"},
      {"definition", "rmsnorm_h128"},
      {"author", "kharness tests"},
      {"spec",
       {{"language", "cpp"},
        {"target_hardware", {"cpu"}},
        {"entry_point", "tamperer.cpp::rmsnorm"},
        {"binding", "kharness"}}},
      {"sources",
       {{{"path", "tamperer.cpp"}, {"content", src}},
        {{"path", "rmsnorm_common.h"}, {"content", read(kGallery / "rmsnorm_common.h")}}}}};
  std::ofstream(dir / "tamperer.json") << j.dump(2);
  return (dir / "tamperer.json").string();
}

std::string loop(const fs::path& archive, const std::string& from, const std::string& replay) {
  return "optimize --definition rmsnorm_h128 --small --backend cpu --no-reference-timing --archive '" +
         archive.string() + "' --from '" + from + "' --agent replay --replay '" + replay +
         "' --rounds 1 --seed 9 --json"
         // The attack needs kharness's own rights, which the jail takes away (stopping it
         // outright: tests/eval/hostile_*): reproduce it without the jail.
         " --sandbox off";
}

bool edited(const fs::path& archive) {
  archive::Archive a = archive::Archive::open_existing(archive);
  return !archive::check_archive(a, true).ok();
}

void expect_reported_not_ranked(const fs::path& archive, bool was_edited) {
  const auto verify = cli_test::run("archive verify --deep --archive '" + archive.string() + "'");
  const auto report = cli_test::run("report --archive '" + archive.string() + "'");
  if (!was_edited) {
    EXPECT_EQ(verify.status, 0) << verify.out;
    EXPECT_EQ(report.status, 0) << report.out;
    return;
  }
  EXPECT_EQ(verify.status, 1) << verify.out;
  EXPECT_NE(verify.out.find("in the index but"), std::string::npos) << verify.out;
  EXPECT_EQ(report.status, 1) << report.out;
  EXPECT_NE(report.out.find("Not ranked"), std::string::npos) << report.out;
  EXPECT_EQ(report.out.find("| 1 | tamperer"), std::string::npos) << "the tamperer was ranked first:\n"
                                                                  << report.out;
}

TEST(OptimizeTamper, EditedFiguresAreNeitherPromotedNorRanked) {
  test::TempDir tmp("tamper-report");
  const fs::path archive = tmp / "a";
  const auto r = cli_test::run(loop(archive, honest(tmp.path()), tamperer(tmp.path(), false)),
                               cli_test::Stderr::dropped);
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json s = nlohmann::json::parse(r.out);
  EXPECT_EQ(s.at("best").at("name"), "honest");
  EXPECT_NE(s.at("decisions").at(0).at("kind"), "promote");
  const bool was_edited = edited(archive);
  std::cout << (was_edited ? "the candidate edited the archive\n"
                           : "the candidate could not edit the archive\n");
  expect_reported_not_ranked(archive, was_edited);
}

TEST(OptimizeTamper, EditingThenKillingTheOrchestratorPromotesNothing) {
  test::TempDir tmp("tamper-kill");
  const fs::path archive = tmp / "a";
  const std::string args = loop(archive, honest(tmp.path()), tamperer(tmp.path(), true));
  const auto first = cli_test::run(args, cli_test::Stderr::dropped);
  ASSERT_NE(first.status, 0) << "the tamperer did not stop the first run: " << first.out;
  const bool was_edited = edited(archive);
  // The resumed loop reads the edited baseline back: it must notice, measure it again,
  // record the tamperer as failed, and decide on honest figures.
  const auto second = cli_test::run(args, cli_test::Stderr::dropped);
  ASSERT_EQ(second.status, 0) << second.out;
  const nlohmann::json s = nlohmann::json::parse(second.out);
  EXPECT_EQ(s.at("best").at("name"), "honest");
  ASSERT_EQ(s.at("decisions").size(), 1u);
  EXPECT_NE(s.at("decisions").at(0).at("kind"), "promote");
  EXPECT_TRUE(s.at("speedup_over_start").is_null()) << "nothing was promoted: " << s;
  expect_reported_not_ranked(archive, was_edited);
}

}  // namespace
}  // namespace kh
