#include "agents/fenced_answer.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace kh::agents {
namespace {

TEST(FencedAnswer, NamesFromInfoStringOrFirstLineComment) {
  const FencedFiles f = parse_fenced_files(
      "Some prose.\n```json file=a/manifest.json\n{}\n```\n```cpp\n// file: a/kernel.cpp\nint x;\n```\n"
      "```python\nprint(1)\n```\n````cpp file=\"a/inner.h\"\n```\nnot a fence end\n````\n");
  EXPECT_FALSE(f.problem);
  ASSERT_EQ(f.files.size(), 3u);
  EXPECT_EQ(f.files[0].path, "a/manifest.json");
  EXPECT_EQ(f.files[0].content, "{}\n");
  EXPECT_EQ(f.files[1].path, "a/kernel.cpp");
  EXPECT_EQ(f.files[1].content, "int x;\n");
  EXPECT_EQ(f.files[2].path, "a/inner.h");
  EXPECT_EQ(f.files[2].content, "```\nnot a fence end\n");
}

TEST(FencedAnswer, AnUnclosedNamedBlockIsAProblem) {
  const FencedFiles f = parse_fenced_files("```cpp file=k.cpp\nint x;\n");
  ASSERT_TRUE(f.problem);
  EXPECT_NE(f.problem->find("not closed"), std::string::npos);
}

TEST(FencedAnswer, WritingRefusesBadPathsAndDuplicatesBeforeWritingAnything) {
  kh::test::TempDir dir;
  EXPECT_TRUE(write_fenced_files({{"ok.cpp", "x"}, {"/etc/x", "y"}}, dir.path()));
  EXPECT_TRUE(write_fenced_files({{"ok.cpp", "x"}, {"ok.cpp", "y"}}, dir.path()));
  EXPECT_FALSE(std::filesystem::exists(dir / "ok.cpp"));
  EXPECT_FALSE(write_fenced_files({{"c/ok.cpp", "x"}}, dir.path()));
  EXPECT_TRUE(std::filesystem::exists(dir / "c/ok.cpp"));
}

}  // namespace
}  // namespace kh::agents
