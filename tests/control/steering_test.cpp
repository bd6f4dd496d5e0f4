// Steering through the API: pending until taken, taken once, re-taken by the same round
// after a crash, kept across reopening, and shared by the loops of a definition.
#include "control/steering.h"

#include <gtest/gtest.h>

#include "error/error.h"
#include "support/temp_dir.h"

namespace kh::control {
namespace {

TEST(Steering, ADirectiveIsTakenOnceAndAReRunOfTheSameRoundGetsItAgain) {
  kh::test::TempDir dir;
  archive::Archive a = archive::Archive::open_or_create(dir.path());
  const Directive d = add_directive(a, {"loop-1", "try split-K", "large", "parallelism"});
  EXPECT_EQ(d.id, 1);
  EXPECT_TRUE(d.pending());
  EXPECT_EQ(add_directive(a, {"loop-1", "keep registers under 128", "", ""}).id, 2);

  const std::vector<Directive> taken = take_directives(a, "loop-1", "", 3);
  ASSERT_EQ(taken.size(), 2U);
  EXPECT_EQ(taken[0].text, "try split-K");
  EXPECT_EQ(taken[0].regime, "large");
  EXPECT_EQ(taken[0].consumed_round, 3);
  EXPECT_TRUE(take_directives(a, "loop-1", "", 4).empty()) << "round 4 must not apply them again";
  EXPECT_EQ(take_directives(a, "loop-1", "", 3).size(), 2U) << "round 3 re-run after a crash keeps them";
  EXPECT_TRUE(take_directives(a, "loop-2", "", 3).empty()) << "another loop's directives are not ours";
}

TEST(Steering, DirectivesSurviveReopeningTheArchive) {
  kh::test::TempDir dir;
  {
    archive::Archive a = archive::Archive::open_or_create(dir.path());
    add_directive(a, {"loop-1", "try split-K", "", ""});
  }
  {
    archive::Archive a = archive::Archive::open_existing(dir.path());
    ASSERT_EQ(list_directives(a, "loop-1").size(), 1U);
    EXPECT_TRUE(list_directives(a, "loop-1").front().pending());
    EXPECT_EQ(take_directives(a, "loop-1", "", 1).size(), 1U);
  }
  archive::Archive a = archive::Archive::open_existing(dir.path());
  const std::vector<Directive> all = list_directives(a);
  ASSERT_EQ(all.size(), 1U);
  EXPECT_FALSE(all.front().pending());
  EXPECT_EQ(all.front().consumed_by, "loop-1");
  EXPECT_TRUE(take_directives(a, "loop-1", "", 2).empty());
}

TEST(Steering, ADefinitionsDirectiveGoesToTheFirstLoopThatTakesIt) {
  kh::test::TempDir dir;
  archive::Archive a = archive::Archive::open_or_create(dir.path());
  add_directive(a, {definition_scope("rmsnorm_h128"), "use 16-byte loads", "", ""});
  EXPECT_TRUE(take_directives(a, "loop-x", "softmax_h4096", 1).empty()) << "another definition";
  const std::vector<Directive> got = take_directives(a, "loop-a", "rmsnorm_h128", 5);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got.front().scope, "definition:rmsnorm_h128");
  EXPECT_TRUE(take_directives(a, "loop-b", "rmsnorm_h128", 5).empty()) << "already taken by loop-a";
}

TEST(Steering, EmptyTextOrScopeIsRefused) {
  kh::test::TempDir dir;
  archive::Archive a = archive::Archive::open_or_create(dir.path());
  EXPECT_THROW(add_directive(a, {"loop-1", "  ", "", ""}), Error);
  EXPECT_THROW(add_directive(a, {"", "text", "", ""}), Error);
}

}  // namespace
}  // namespace kh::control
