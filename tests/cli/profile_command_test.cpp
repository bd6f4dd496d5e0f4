// `kharness profile` end to end on the CPU backend: it says what it is doing step by
// step, writes both reports, and refuses bad requests with a reason.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "kharness_command.h"
#include "support/temp_dir.h"

namespace {

using kh::cli_test::CommandResult;
using kh::cli_test::run;

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

TEST(ProfileCommand, ReportsEachStepAsItGoesAndWritesBothReports) {
  kh::test::TempDir dir;
  const CommandResult r =
      run("profile --definition rmsnorm_h4096 --baseline --backend cpu --small --out " + quoted(dir / "p"));
  ASSERT_EQ(r.status, 0) << r.out;

  std::ifstream json_file(dir / "p" / "profile.json");
  ASSERT_TRUE(json_file) << "no profile.json";
  const nlohmann::json report = nlohmann::json::parse(json_file);
  const std::size_t regimes = report.at("regimes").size();
  ASSERT_GE(regimes, 1u);
  EXPECT_TRUE(std::filesystem::exists(dir / "p" / "profile.md"));

  // One line when the regimes are known, then one per representative, in order, each
  // before the report is written.
  const std::size_t planned = r.out.find(" regime(s) over ");
  ASSERT_NE(planned, std::string::npos) << r.out;
  std::size_t at = planned;
  for (std::size_t i = 1; i <= regimes; ++i) {
    const std::string line = "kharness profile: evaluated " + std::to_string(i) + "/" +
                             std::to_string(regimes) + ": regime " +
                             report["regimes"][i - 1].at("name").get<std::string>();
    const std::size_t next = r.out.find(line, at);
    ASSERT_NE(next, std::string::npos) << "missing or out of order: " << line << "\n" << r.out;
    at = next;
  }
  EXPECT_LT(at, r.out.find("wrote ")) << r.out;
}

TEST(ProfileCommand, NeedsASolutionOrTheBaseline) {
  const CommandResult r = run("profile --definition rmsnorm_h4096 --backend cpu");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("needs --solution FILE or --baseline"), std::string::npos) << r.out;
}

TEST(ProfileCommand, AMissingSolutionFileIsNamed) {
  const CommandResult r =
      run("profile --definition rmsnorm_h4096 --backend cpu --solution /nonexistent/s.json");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("/nonexistent/s.json"), std::string::npos) << r.out;
}

TEST(ProfileCommand, AnUnknownDefinitionIsAnErrorNotACrash) {
  kh::test::TempDir dir;
  const CommandResult r =
      run("profile --definition no_such_op --baseline --backend cpu --out " + quoted(dir / "p"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no_such_op"), std::string::npos) << r.out;
}

}  // namespace
