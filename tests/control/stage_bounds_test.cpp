// Stage bounds: explore keeps 3-8 candidates spread over families, exploit 1-3.
#include "control/stage_bounds.h"

#include <gtest/gtest.h>

#include <set>

namespace kh::control {
namespace {

std::set<std::string> families_of(const StageSelection& s, const std::vector<std::string>& families) {
  std::set<std::string> out;
  for (std::size_t i : s.chosen) out.insert(families[i]);
  return out;
}

TEST(StageBounds, ExploreKeepsAtMostEightSpreadOverFamilies) {
  std::vector<std::string> f(10, "a");
  f.insert(f.end(), 3, "b");
  f.insert(f.end(), 2, "c");
  const StageSelection s = select_for_stage(f, kExploreBounds, 100);
  EXPECT_EQ(s.chosen.size(), 8u);
  EXPECT_EQ(families_of(s, f).size(), 3u);
  EXPECT_TRUE(s.within_bounds);
  // Round-robin: the first three are one of each family.
  EXPECT_EQ((std::set<std::string>{f[s.chosen[0]], f[s.chosen[1]], f[s.chosen[2]]}).size(), 3u);
}

TEST(StageBounds, ExploreWithTooFewFamiliesSaysSo) {
  const std::vector<std::string> f{"a", "a", "b", "a"};
  const StageSelection s = select_for_stage(f, kExploreBounds, 100);
  EXPECT_EQ(s.chosen.size(), 4u);
  EXPECT_FALSE(s.within_bounds);
  EXPECT_NE(s.note.find("2 families, at least 3"), std::string::npos) << s.note;
}

TEST(StageBounds, ExploreWithTooFewCandidatesSaysSo) {
  const StageSelection s = select_for_stage({"a", "b"}, kExploreBounds, 100);
  EXPECT_FALSE(s.within_bounds);
  EXPECT_NE(s.note.find("2 candidate(s), at least 3"), std::string::npos) << s.note;
}

TEST(StageBounds, ExploitKeepsOneToThree) {
  const StageSelection s = select_for_stage({"a", "a", "b", "c", "d"}, kExploitBounds, 100);
  EXPECT_EQ(s.chosen.size(), 3u);
  EXPECT_TRUE(s.within_bounds);
  EXPECT_FALSE(select_for_stage({}, kExploitBounds, 100).within_bounds);
}

TEST(StageBounds, TheBudgetCapsTheStage) {
  const StageSelection s = select_for_stage({"a", "b", "c", "d"}, kExploreBounds, 2);
  EXPECT_EQ(s.chosen.size(), 2u);
  EXPECT_FALSE(s.within_bounds);
}

}  // namespace
}  // namespace kh::control
