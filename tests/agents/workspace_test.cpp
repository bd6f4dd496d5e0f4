#include "agents/workspace.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "answer_fixture.h"
#include "support/temp_dir.h"
#include "trace/json_io.h"

namespace kh::agents {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Workspace, HoldsEverythingTheContractNames) {
  kh::test::TempDir dir;
  ProposalContext ctx = test::rmsnorm_request(dir.path());
  ctx.hypothesis.directive = "try two rows per iteration";
  write_workspace(ctx, WorkspaceInputs{"# skill text\n", {}});
  for (const char* f : {"TASK.md", "definition.json", "parent/solution.json", "parent/baseline.cpp",
                        "profile.md", "profile.json", "hypothesis.json", "skills.md", "history.json"}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / f)) << f;
  }
  EXPECT_TRUE(std::filesystem::is_directory(dir / "out"));
  EXPECT_TRUE(std::filesystem::is_empty(dir / "out"));
  EXPECT_EQ(parse_definition(slurp(dir / "definition.json")).name, "rmsnorm_h128");
  EXPECT_EQ(parse_solution(slurp(dir / "parent/solution.json")).name, ctx.parent.name);
  const auto hypothesis = nlohmann::json::parse(slurp(dir / "hypothesis.json"));
  EXPECT_EQ(hypothesis["family"], "memory_access");
  EXPECT_EQ(hypothesis["max_candidates"], 2);
  const std::string task = slurp(dir / "TASK.md");
  EXPECT_NE(task.find("try two rows per iteration"), std::string::npos);
  EXPECT_NE(task.find("out/"), std::string::npos);
  EXPECT_NE(task.find("manifest.json"), std::string::npos);
  EXPECT_EQ(slurp(dir / "skills.md"), "# skill text\n");
}

TEST(Workspace, ASecondRequestStartsWithAnEmptyOut) {
  kh::test::TempDir dir;
  ProposalContext ctx = test::rmsnorm_request(dir.path());
  write_workspace(ctx, {});
  dir.write("out/old/manifest.json", "{}");
  ctx.evidence_markdown.clear();
  write_workspace(ctx, {});
  EXPECT_TRUE(std::filesystem::is_empty(dir / "out"));
  EXPECT_FALSE(std::filesystem::exists(dir / "profile.md"));
}

TEST(Workspace, AParentWithAnUnsafePathIsRefused) {
  kh::test::TempDir dir;
  ProposalContext ctx = test::rmsnorm_request(dir.path());
  ctx.parent.sources[0].path = "../escape.cpp";
  EXPECT_THROW(write_workspace(ctx, {}), Error);
  EXPECT_FALSE(std::filesystem::exists(dir.path().parent_path() / "escape.cpp"));
}

}  // namespace
}  // namespace kh::agents
