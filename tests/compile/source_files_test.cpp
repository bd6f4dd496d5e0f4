#include "compile/source_files.h"

#include <gtest/gtest.h>

#include <fstream>

#include "base/temp_dir.h"
#include "error/error.h"

namespace kh::detail {
namespace {

TEST(SourceFiles, AcceptsPlainRelativePaths) {
  EXPECT_NO_THROW(validate_source_path("kernel.cu", 0));
  EXPECT_NO_THROW(validate_source_path("a/b/c.cuh", 0));
  EXPECT_NO_THROW(validate_source_path("..hidden/x..y.h", 0));
}

TEST(SourceFiles, RejectsTraversalAndOddPaths) {
  for (const char* bad : {"../x.cu", "a/../../x.cu", "a/..", "/etc/passwd", "", "a//b.cu", "./a.cu",
                          "a\\b.cu", "a\"b.cu", "a\nb.cu"}) {
    EXPECT_THROW(validate_source_path(bad, 3), Error) << bad;
  }
  try {
    validate_source_path("../../etc/x", 3);
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field, "sources[3].path");
    EXPECT_NE(std::string(e.what()).find(".."), std::string::npos);
  }
}

TEST(SourceFiles, WritesNestedFilesAndRejectsDuplicates) {
  TempDir dir(std::filesystem::temp_directory_path(), "kharness-src-test-");
  write_sources(dir.path(), {{"a/b.h", "x"}, {"c.cu", std::string("\0y", 2)}});
  std::ifstream in(dir.path() / "c.cu", std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, std::string("\0y", 2));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "a/b.h"));
  EXPECT_THROW(write_sources(dir.path(), {{"d.h", "1"}, {"d.h", "2"}}), Error);
  EXPECT_THROW(write_sources(dir.path(), {{"../escape.h", "1"}}), Error);
  EXPECT_FALSE(std::filesystem::exists(dir.path().parent_path() / "escape.h"));
}

}  // namespace
}  // namespace kh::detail
