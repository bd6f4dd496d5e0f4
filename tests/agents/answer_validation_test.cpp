#include "agents/answer_validation.h"

#include <gtest/gtest.h>

#include "agents/answer_paths.h"
#include "answer_fixture.h"
#include "support/temp_dir.h"

namespace kh::agents {
namespace {

using test::kKernel;
using test::manifest;

class AnswerValidation : public ::testing::Test {
 protected:
  kh::test::TempDir dir_;
  ProposalContext ctx_ = test::rmsnorm_request(dir_.path());
  std::filesystem::path out_ = dir_ / "out";

  void candidate(const std::string& folder, const std::string& manifest_text,
                 const std::string& kernel_text = kKernel) {
    dir_.write("out/" + folder + "/manifest.json", manifest_text);
    dir_.write("out/" + folder + "/kernel.cpp", kernel_text);
  }
  AnswerReading read(const AnswerLimits& limits = {}) { return read_answer(out_, ctx_, "cli", limits); }
  static std::string only_reason(const AnswerReading& r) {
    EXPECT_TRUE(r.candidates.empty());
    return r.rejected.size() == 1 ? r.rejected[0].reason
                                  : "(" + std::to_string(r.rejected.size()) + " rejected)";
  }
};

TEST_F(AnswerValidation, AValidCandidateBecomesASolution) {
  candidate("fast", manifest());
  const AnswerReading r = read();
  ASSERT_EQ(r.candidates.size(), 1u) << (r.rejected.empty() ? "" : r.rejected[0].reason);
  const Candidate& c = r.candidates[0];
  EXPECT_EQ(c.family, "memory_access");
  EXPECT_EQ(c.hypothesis, "one pass per row");
  EXPECT_EQ(c.solution.definition, "rmsnorm_h128");
  EXPECT_EQ(c.solution.author, "cli");
  EXPECT_EQ(c.solution.spec.entry_point, "kernel.cpp::rmsnorm_fast");
  ASSERT_EQ(c.solution.sources.size(), 1u);
  EXPECT_EQ(c.solution.sources[0].content, kKernel);
  EXPECT_NE(c.solution.name.find("fast"), std::string::npos);
}

// A loop started from a tvm-ffi solution keeps proposing tvm-ffi ones, so its winner runs
// under flashinfer-bench as it is; a kharness-ABI parent keeps kharness's binding.
TEST_F(AnswerValidation, ACandidateKeepsItsParentsBinding) {
  candidate("fast", manifest());
  EXPECT_EQ(read().candidates.at(0).solution.spec.binding, "kharness");
  ctx_.parent.spec.binding = "tvm-ffi";
  ctx_.parent.spec.destination_passing_style = false;
  const AnswerReading r = read();
  ASSERT_EQ(r.candidates.size(), 1u);
  EXPECT_EQ(r.candidates[0].solution.spec.binding, "tvm-ffi");
  EXPECT_FALSE(r.candidates[0].solution.spec.uses_destination_passing());
  // Another language than the parent's (where the round accepts both) gets kharness's
  // own ABI.
  ctx_.parent.spec.language = "cuda";
  AnswerLimits both;
  both.languages = {"cpp", "cuda"};
  const AnswerReading other = read(both);
  ASSERT_EQ(other.candidates.size(), 1u) << (other.rejected.empty() ? "" : other.rejected[0].reason);
  EXPECT_EQ(other.candidates[0].solution.spec.binding, "kharness");
}

TEST_F(AnswerValidation, ASingleCandidateAtTheTopOfOutIsAccepted) {
  dir_.write("out/manifest.json", manifest());
  dir_.write("out/kernel.cpp", kKernel);
  EXPECT_EQ(read().candidates.size(), 1u);
}

TEST_F(AnswerValidation, EmptyOutIsRejected) {
  std::filesystem::create_directories(out_);
  EXPECT_NE(only_reason(read()).find("no candidate in out/"), std::string::npos);
}

TEST_F(AnswerValidation, BadPathsAreRejectedWithTheReason) {
  candidate("abs", manifest("f", "kernel.cpp::rmsnorm_fast", R"(["kernel.cpp", "/etc/passwd"])"));
  candidate("dots", manifest("f", "kernel.cpp::rmsnorm_fast", R"(["kernel.cpp", "../abs/kernel.cpp"])"));
  ctx_.max_candidates = 5;
  const AnswerReading r = read();
  ASSERT_EQ(r.rejected.size(), 2u);
  EXPECT_NE(r.rejected[0].reason.find("is absolute"), std::string::npos) << r.rejected[0].reason;
  EXPECT_NE(r.rejected[1].reason.find("climbs out"), std::string::npos) << r.rejected[1].reason;
  EXPECT_NE(r.rejected[0].excerpt.find("\"family\""), std::string::npos);
}

TEST_F(AnswerValidation, SymlinksOutOfTheFolderAreRejected) {
  dir_.write("secret.txt", "key");
  dir_.write("out/s/manifest.json", manifest("f", "kernel.cpp::rmsnorm_fast", R"(["kernel.cpp", "leak.h"])"));
  dir_.write("out/s/kernel.cpp", kKernel);
  std::filesystem::create_symlink(dir_ / "secret.txt", dir_ / "out/s/leak.h");
  EXPECT_NE(only_reason(read()).find("symlink out of the candidate's folder"), std::string::npos);
}

TEST_F(AnswerValidation, SymlinksInsideTheFolderAreFine) {
  dir_.write("out/s/manifest.json",
             manifest("f", "kernel.cpp::rmsnorm_fast", R"(["kernel.cpp", "alias.h"])"));
  dir_.write("out/s/kernel.cpp", kKernel);
  dir_.write("out/s/real.h", "// header\n");
  std::filesystem::create_symlink("real.h", dir_ / "out/s/alias.h");
  EXPECT_EQ(read().candidates.size(), 1u);
}

TEST_F(AnswerValidation, SizeLimitsAreEnforced) {
  candidate("big", manifest(), std::string(kKernel) + "// " + std::string(5000, 'x') + "\n");
  AnswerLimits limits;
  limits.max_file_bytes = 4096;
  EXPECT_NE(only_reason(read(limits)).find("larger than the limit of 4096 bytes"), std::string::npos);
  limits.max_files = 0;
  EXPECT_NE(only_reason(read(limits)).find("more than the limit of 0"), std::string::npos);
}

TEST_F(AnswerValidation, EntryPointMustBeDeclaredAndDefined) {
  candidate("undeclared", manifest("f", "other.cpp::rmsnorm_fast"));
  EXPECT_NE(only_reason(read()).find("'other.cpp' is not among the declared sources"), std::string::npos);
  std::filesystem::remove_all(out_);
  candidate("missing_fn", manifest("f", "kernel.cpp::not_there"));
  EXPECT_NE(only_reason(read()).find("'not_there' does not appear"), std::string::npos);
  std::filesystem::remove_all(out_);
  candidate("missing_file", manifest("f", "kernel.cpp::rmsnorm_fast", R"(["kernel.cpp", "gone.h"])"));
  EXPECT_NE(only_reason(read()).find("'gone.h' is declared but missing"), std::string::npos);
}

TEST_F(AnswerValidation, LanguageMustBeAcceptedAndFitTheFiles) {
  candidate("cu", manifest("f", "kernel.cpp::rmsnorm_fast", R"(["kernel.cpp"])", "cuda"));
  EXPECT_NE(only_reason(read()).find("language 'cuda' is not accepted"), std::string::npos);
  AnswerLimits both;
  both.languages = {"cpp", "cuda"};
  EXPECT_NE(only_reason(read(both)).find("no cuda source extension"), std::string::npos);
}

TEST_F(AnswerValidation, MalformedManifestIsRejected) {
  candidate("m1", "{\"family\": \"x\", ");
  candidate("m2", R"({"family": "x", "hypothesis": "y", "language": "cpp", "entry_point": "kernel.cpp::f",
                      "sources": ["kernel.cpp"], "sauce": 1})");
  const AnswerReading r = read();
  ASSERT_EQ(r.rejected.size(), 2u);
  EXPECT_NE(r.rejected[0].reason.find("not valid JSON"), std::string::npos) << r.rejected[0].reason;
  EXPECT_NE(r.rejected[1].reason.find("sauce"), std::string::npos) << r.rejected[1].reason;
}

TEST_F(AnswerValidation, CandidatesBeyondTheLimitAreRejectedNotDropped) {
  ctx_.max_candidates = 1;
  candidate("a", manifest());
  candidate("b", manifest());
  const AnswerReading r = read();
  ASSERT_EQ(r.candidates.size(), 1u);
  ASSERT_EQ(r.rejected.size(), 1u);
  EXPECT_NE(r.rejected[0].reason.find("more than max_candidates (1)"), std::string::npos);
}

TEST(AnswerPaths, AllowsPlainRelativeNamesOnly) {
  EXPECT_FALSE(path_problem("kernel.cpp"));
  EXPECT_FALSE(path_problem("a/b/c/d.h"));
  for (const char* bad : {"", "/x", "a/../b", "..", "./a", "a//b", "a/", "a b", "a\\b", "-rf", "a/b/c/d/e"}) {
    EXPECT_TRUE(path_problem(bad)) << bad;
  }
}

}  // namespace
}  // namespace kh::agents
