// The archive commands through the kharness binary: --help, --json, exit codes and
// messages on bad input.
#include <gtest/gtest.h>

#include "archive/archive.h"
#include "archive/run_writer.h"
#include "archive/schema.h"
#include "archive_fixtures.h"
#include "error/error.h"

namespace kh::archive {
namespace {

using test::quoted;
using test::run_command;
using test::TempDir;
using json = nlohmann::ordered_json;

std::string kharness(const std::string& args) { return std::string("'") + KHARNESS_EXECUTABLE + "' " + args; }

bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

// The JSON document in a command's output (progress lines on stderr come first).
json parse_output(const std::string& out) { return json::parse(out.substr(out.find('{'))); }

TEST(ArchiveCli, EveryCommandHasHelp) {
  for (const char* cmd :
       {"archive", "archive import", "archive export", "archive ls", "archive verify", "rerun"}) {
    const auto r = run_command(kharness(std::string(cmd) + " --help"));
    EXPECT_EQ(r.status, 0) << cmd << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "Usage")) << cmd;
  }
  EXPECT_TRUE(contains(run_command(kharness("eval --help")).out, "--archive"));
}

TEST(ArchiveCli, ImportExportLsVerifyWithJson) {
  TempDir dir;
  dir.write("set/definitions/synthetic/synthetic_copy.json", test::kSyntheticDefinition);
  dir.write("set/solutions/candidate-x.json", test::synthetic_solution("candidate-x"));
  dir.write("set/traces/t.jsonl", test::synthetic_trace("candidate-x", 0, 0.5) + "\n");
  auto r = run_command(
      kharness("archive import " + quoted(dir / "set") + " --archive " + quoted(dir / "a") + " --json"));
  ASSERT_EQ(r.status, 0) << r.out;
  json j = parse_output(r.out);
  EXPECT_EQ(j["counts"]["traces"]["added"], 1);
  EXPECT_EQ(j["counts"]["definitions"]["added"], 1);
  EXPECT_EQ(j["errors"], 0);

  r = run_command(
      kharness("archive import " + quoted(dir / "set") + " --archive " + quoted(dir / "a") + " --json"));
  EXPECT_EQ(parse_output(r.out)["counts"]["traces"]["added"], 0);

  r = run_command(
      kharness("archive export --archive " + quoted(dir / "a") + " " + quoted(dir / "out") + " --json"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(parse_output(r.out)["files"], 3);
  EXPECT_EQ(test::read_bytes(dir / "out/traces/t.jsonl"), test::read_bytes(dir / "set/traces/t.jsonl"));

  {
    Archive a = Archive::open_existing(dir / "a");
    write_run(a, test::synthetic_run("recorded", 2));
  }
  r = run_command(kharness("archive ls --archive " + quoted(dir / "a") + " --json"));
  ASSERT_EQ(r.status, 0) << r.out;
  j = parse_output(r.out);
  EXPECT_EQ(j["schema_version"], current_schema_version());
  EXPECT_EQ(j["counts"]["traces"], 3);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["solution"], "candidate-recorded");
  EXPECT_EQ(j["runs"][0]["passed"], 2);
  EXPECT_DOUBLE_EQ(j["runs"][0]["mean_speedup"].get<double>(), 2.0);

  r = run_command(kharness("archive verify --archive " + quoted(dir / "a") + " --deep --json"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(parse_output(r.out)["ok"], true);
}

TEST(ArchiveCli, ABlobDeletedFromUnderTheArchiveFailsVerify) {
  TempDir dir;
  {
    Archive a = Archive::open_or_create(dir / "a");
    write_run(a, test::synthetic_run("x", 1));
    std::filesystem::remove(a.blobs().path_of(a.db().query_text("SELECT log_blob FROM builds")));
  }
  const auto r = run_command(kharness("archive verify --archive " + quoted(dir / "a")));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "is missing")) << r.out;
}

TEST(ArchiveCli, BadInputGetsAClearErrorAndStatusTwo) {
  TempDir dir;
  dir.write("file.txt", "x");
  auto r = run_command(kharness("archive ls --archive " + quoted(dir.path())));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "not an archive")) << r.out;

  r = run_command(kharness("archive import " + quoted(dir / "missing") + " --archive " + quoted(dir / "a")));
  EXPECT_EQ(r.status, 2) << r.out;

  r = run_command(
      kharness("archive import " + quoted(dir.path()) + " --archive " + quoted(dir / "file.txt")));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "error:")) << r.out;

  { Archive a = Archive::open_or_create(dir / "a"); }
  r = run_command(kharness("rerun 99 --archive " + quoted(dir / "a")));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "no run 99")) << r.out;

  r = run_command(kharness("archive export --archive " + quoted(dir / "a") + " " + quoted(dir.path())));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "not empty")) << r.out;

  dir.write("newer/index.sqlite", "");
  {
    Database db = Database::open(dir / "newer/index.sqlite", Database::Mode::create);
    db.exec("PRAGMA user_version = 7");
  }
  r = run_command(kharness("archive ls --archive " + quoted(dir / "newer")));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.out, "newer than")) << r.out;
}

}  // namespace
}  // namespace kh::archive
