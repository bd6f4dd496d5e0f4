// `kharness steer` as a person uses it: add, list, --json, --help, usage errors; the
// loop's side (take) through the library, against the same archive.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "archive/archive.h"
#include "cli/kharness_command.h"
#include "control/steering.h"
#include "support/temp_dir.h"

namespace kh::cli_test {
namespace {

std::string archive_arg(const kh::test::TempDir& dir) { return "--archive '" + dir.path().string() + "'"; }

TEST(SteerCommand, AddsListsAndTheLoopTakesItOnce) {
  kh::test::TempDir dir;
  { archive::Archive a = archive::Archive::open_or_create(dir.path()); }
  CommandResult add = run("steer " + archive_arg(dir) + " --loop loop-1 --regime large \"try split-K\"");
  ASSERT_EQ(add.status, 0) << add.out;
  EXPECT_NE(add.out.find("loop-1 #1"), std::string::npos) << add.out;

  CommandResult listed = run("steer " + archive_arg(dir) + " --list --json", Stderr::dropped);
  ASSERT_EQ(listed.status, 0) << listed.out;
  const auto j = nlohmann::json::parse(listed.out);
  ASSERT_EQ(j.size(), 1U);
  EXPECT_EQ(j[0]["text"], "try split-K");
  EXPECT_EQ(j[0]["regime"], "large");
  EXPECT_TRUE(j[0]["consumed_round"].is_null());

  {
    archive::Archive a = archive::Archive::open_existing(dir.path());  // the loop, reopening
    EXPECT_EQ(control::take_directives(a, "loop-1", "", 7).size(), 1U);
    EXPECT_TRUE(control::take_directives(a, "loop-1", "", 8).empty()) << "a second take gets nothing";
  }
  listed = run("steer " + archive_arg(dir) + " --list --loop loop-1");
  ASSERT_EQ(listed.status, 0) << listed.out;
  EXPECT_NE(listed.out.find("taken by loop-1 in round 7"), std::string::npos) << listed.out;
}

TEST(SteerCommand, ADefinitionDirectiveWithJson) {
  kh::test::TempDir dir;
  { archive::Archive a = archive::Archive::open_or_create(dir.path()); }
  CommandResult add =
      run("steer " + archive_arg(dir) + " --definition rmsnorm_h128 --json \"use 16-byte loads\"",
          Stderr::dropped);
  ASSERT_EQ(add.status, 0) << add.out;
  const auto j = nlohmann::json::parse(add.out);
  EXPECT_EQ(j["scope"], "definition:rmsnorm_h128");
  EXPECT_EQ(j["id"], 1);
}

TEST(SteerCommand, UsageErrorsAndHelp) {
  kh::test::TempDir dir;
  { archive::Archive a = archive::Archive::open_or_create(dir.path()); }
  EXPECT_EQ(run("steer " + archive_arg(dir) + " \"no target\"").status, 2);
  EXPECT_EQ(run("steer " + archive_arg(dir) + " --loop a --definition b \"both\"").status, 2);
  EXPECT_EQ(run("steer " + archive_arg(dir) + " --loop a").status, 2) << "no text";
  EXPECT_EQ(run("steer --archive '" + (dir / "missing").string() + "' --loop a \"x\"").status, 2);
  const CommandResult help = run("steer --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--definition"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--list"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace kh::cli_test
