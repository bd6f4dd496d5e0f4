#include "agents/skill_composer.h"

#include <gtest/gtest.h>

#include "agents/skill.h"
#include "agents/skill_library.h"
#include "error/error.h"
#include "support/temp_dir.h"

namespace kh::agents {
namespace {

Skill skill(const std::string& name, const std::string& front, std::size_t body_chars = 40) {
  return parse_skill("---\n" + front + "---\n# " + name + "\n" + std::string(body_chars, 'x') + "\n",
                     name + ".md", name);
}

TEST(SkillFrontMatter, ParsesListsScalarsQuotesAndComments) {
  const Skill s = parse_skill(
      "---\n# a comment\noperators: [rmsnorm_*, \"softmax_h4096\"]  # trailing\nregimes: [small, 'outlier "
      "*']\n"
      "stages: [exploit]\npriority: 75\n---\nbody text\n",
      "a.md", "a");
  EXPECT_EQ(s.operators, (std::vector<std::string>{"rmsnorm_*", "softmax_h4096"}));
  EXPECT_EQ(s.regimes, (std::vector<std::string>{"small", "outlier *"}));
  EXPECT_EQ(s.stages, (std::vector<std::string>{"exploit"}));
  EXPECT_EQ(s.priority, 75);
  EXPECT_EQ(s.body, "body text");
}

TEST(SkillFrontMatter, DefaultsAreTheWidest) {
  const Skill s = parse_skill("---\n---\nbody\n", "a.md", "a");
  EXPECT_TRUE(s.applies_to("anything", "large", "explore"));
  EXPECT_EQ(s.priority, 50);
}

TEST(SkillFrontMatter, ErrorsNameFileLineAndKey) {
  try {
    (void)parse_skill("---\noperators: [a]\nprioirty: 3\n---\n", "skills/x.md", "x");
    FAIL() << "an unknown key must be an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().file, "skills/x.md");
    EXPECT_EQ(e.where().line, 3u);
    EXPECT_EQ(e.where().field, "prioirty");
  }
  EXPECT_THROW((void)parse_skill("# no front matter\n", "y.md", "y"), Error);
  EXPECT_THROW((void)parse_skill("---\npriority: 101\n---\n", "y.md", "y"), Error);
  EXPECT_THROW((void)parse_skill("---\nstages: [tune]\n---\n", "y.md", "y"), Error);
  EXPECT_THROW((void)parse_skill("---\noperators: [a]\n", "y.md", "y"), Error);
}

TEST(SkillFrontMatter, MatchesOperatorGlobsRegimesAndStages) {
  const Skill s = skill("s", "operators: [rmsnorm_*]\nregimes: [small, outlier*]\nstages: [exploit]\n");
  EXPECT_TRUE(s.applies_to("rmsnorm_h128", "small", "exploit"));
  EXPECT_TRUE(s.applies_to("rmsnorm_h128", "outlier 1", "exploit"));
  EXPECT_TRUE(s.applies_to("rmsnorm_h128", "", ""));
  EXPECT_FALSE(s.applies_to("softmax_h4096", "small", "exploit"));
  EXPECT_FALSE(s.applies_to("rmsnorm_h128", "large", "exploit"));
  EXPECT_FALSE(s.applies_to("rmsnorm_h128", "small", "explore"));
}

TEST(SkillComposer, SelectsAndOrdersByPriorityThenSpecificity) {
  const std::vector<Skill> skills = {
      skill("generic_low", "priority: 10\n"),
      skill("generic_high", "priority: 90\n"),
      skill("specific", "operators: [rmsnorm_h128]\npriority: 90\n"),
      skill("other_op", "operators: [softmax_*]\npriority: 100\n"),
      skill("exploit_only", "stages: [exploit]\npriority: 95\n"),
  };
  const ComposedSkills c = compose_skills(skills, {"rmsnorm_h128", "small", "explore", 0});
  ASSERT_EQ(c.included.size(), 3u);
  EXPECT_EQ(c.included[0].name, "specific");
  EXPECT_EQ(c.included[1].name, "generic_high");
  EXPECT_EQ(c.included[2].name, "generic_low");
  EXPECT_TRUE(c.left_out.empty());
  EXPECT_LT(c.markdown.find("# specific"), c.markdown.find("# generic_high"));
  EXPECT_EQ(c.markdown.find("other_op"), std::string::npos);
}

TEST(SkillComposer, DropsWholeSkillsLowestPriorityFirstAndSaysSo) {
  const std::vector<Skill> skills = {
      skill("a_top", "priority: 100\n", 400),
      skill("b_mid", "priority: 60\n", 400),
      skill("c_low", "priority: 20\n", 400),
  };
  const std::size_t one = compose_skills({skills[0]}, {"op", "", "", 0}).tokens;
  const ComposedSkills c = compose_skills(skills, {"op", "", "", one * 2 + 30});
  ASSERT_EQ(c.included.size(), 2u);
  EXPECT_EQ(c.included[1].name, "b_mid");
  ASSERT_EQ(c.left_out.size(), 1u);
  EXPECT_EQ(c.left_out[0].name, "c_low");
  EXPECT_LE(c.tokens, one * 2 + 30);
  EXPECT_NE(c.markdown.find("left out to fit the token budget: c_low (priority 20"), std::string::npos);
  // Never half a skill: each included body is there whole, the dropped one not at all.
  EXPECT_NE(c.markdown.find(skills[1].body), std::string::npos);
  EXPECT_EQ(c.markdown.find("# c_low"), std::string::npos);

  const ComposedSkills tiny = compose_skills(skills, {"op", "", "", 10});
  EXPECT_TRUE(tiny.included.empty());
  EXPECT_EQ(tiny.left_out.size(), 3u);
}

TEST(SkillLibrary, ShippedSkillsAllParseAndComposeForAnOperator) {
  const SkillSources sources{std::filesystem::path(KHARNESS_SOURCE_DIR) / "skills",
                             std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators"};
  const std::vector<Skill> skills = load_skills(sources);
  std::vector<std::string> names;
  names.reserve(skills.size());
  for (const auto& s : skills) names.push_back(s.name);
  for (const char* expected : {"forbidden_tricks", "promotion_rules", "reading_the_diagnosis",
                               "profiling_procedure", "hopper_cuda_habits", "operator:rmsnorm_h128"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  const ComposedSkills c = compose_skills(skills, {"rmsnorm_h128", "small", "explore", 0});
  ASSERT_FALSE(c.included.empty());
  EXPECT_EQ(c.included[0].name, "forbidden_tricks");
  for (const auto& s : c.included) EXPECT_NE(s.name, "operator:softmax_h4096");
}

}  // namespace
}  // namespace kh::agents
