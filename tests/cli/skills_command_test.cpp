// `kharness skills show`: the real binary prints what an agent would receive.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/kharness_command.h"

namespace kh {
namespace {

using cli_test::run;
using cli_test::Stderr;

const std::string kSkills = std::string(" --skills '") + KHARNESS_SOURCE_DIR + "/skills' --operators '" +
                            KHARNESS_SOURCE_DIR + "/operators'";

nlohmann::json show(const std::string& args) {
  const auto r = run("skills show " + args + kSkills + " --json", Stderr::dropped);
  EXPECT_EQ(r.status, 0) << r.out;
  return nlohmann::json::parse(r.out);
}

std::vector<std::string> names(const nlohmann::json& list) {
  std::vector<std::string> out;
  for (const auto& s : list) out.push_back(s.at("name").get<std::string>());
  return out;
}

TEST(SkillsCommand, ShowsTheOperatorsSkillsInPriorityOrder) {
  const nlohmann::json j = show("--definition rmsnorm_h128 --stage explore");
  const auto included = names(j.at("included"));
  ASSERT_GE(included.size(), 5u);
  EXPECT_EQ(included[0], "forbidden_tricks");
  EXPECT_EQ(included[1], "operator:rmsnorm_h128");
  EXPECT_TRUE(j.at("left_out").empty());
  EXPECT_NE(j.at("markdown").get<std::string>().find("# Forbidden tricks"), std::string::npos);
  for (const auto& n : names(show("--definition softmax_h4096").at("included"))) {
    EXPECT_NE(n, "operator:rmsnorm_h128");
  }
  // The profiling procedure is for exploring only.
  const auto exploit = names(show("--definition rmsnorm_h128 --stage exploit").at("included"));
  EXPECT_EQ(std::find(exploit.begin(), exploit.end(), "profiling_procedure"), exploit.end());
}

TEST(SkillsCommand, ABudgetDropsWholeSkillsAndSaysWhich) {
  const nlohmann::json j = show("--definition rmsnorm_h128 --budget 1500");
  EXPECT_LE(j.at("tokens").get<std::size_t>(), 1500u);
  ASSERT_FALSE(j.at("left_out").empty());
  const std::string text = j.at("markdown").get<std::string>();
  for (const auto& n : names(j.at("left_out"))) {
    EXPECT_NE(text.find(n + " (priority"), std::string::npos) << n << " must be named as left out";
  }
}

TEST(SkillsCommand, PlainOutputIsTheMarkdownAndBadFlagsAreUsageErrors) {
  const auto r = run("skills show --definition rmsnorm_h128" + kSkills, Stderr::dropped);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("<!-- skill: forbidden_tricks -->", 0), 0u) << r.out.substr(0, 200);
  EXPECT_EQ(run("skills show --definition rmsnorm_h128 --stage tune").status, 2);
  EXPECT_EQ(run("skills show").status, 2);
  EXPECT_EQ(run("skills show --help").status, 0);
}

}  // namespace
}  // namespace kh
