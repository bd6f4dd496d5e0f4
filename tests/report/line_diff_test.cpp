#include "report/line_diff.h"

#include <gtest/gtest.h>

#include <random>

namespace kh::report {
namespace {

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// The diff's kept + removed lines are the old text, kept + added the new one.
void expect_reconstructs(const std::vector<DiffLine>& d, const std::string& a, const std::string& b) {
  std::vector<std::string> old_lines, new_lines;
  for (const DiffLine& l : d) {
    if (l.op != DiffOp::added) old_lines.push_back(l.text);
    if (l.op != DiffOp::removed) new_lines.push_back(l.text);
  }
  EXPECT_EQ(old_lines, split_lines(a));
  EXPECT_EQ(new_lines, split_lines(b));
}

// Length of the longest common subsequence, by dynamic programming: the reference the
// Myers diff must match (it is minimal: edits = n + m - 2 * LCS).
std::size_t lcs(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    }
  }
  return t[a.size()][b.size()];
}

TEST(LineDiff, ChangedLineIsRemovedThenAdded) {
  const auto d = line_diff("a\nb\nc\n", "a\nB\nc\n");
  ASSERT_TRUE(d.has_value());
  ASSERT_EQ(d->size(), 4u);
  EXPECT_EQ((*d)[0].op, DiffOp::same);
  EXPECT_EQ((*d)[1].op, DiffOp::removed);
  EXPECT_EQ((*d)[1].text, "b");
  EXPECT_EQ((*d)[1].old_line, 2u);
  EXPECT_EQ((*d)[2].op, DiffOp::added);
  EXPECT_EQ((*d)[2].text, "B");
  EXPECT_EQ((*d)[2].new_line, 2u);
  EXPECT_EQ((*d)[3].old_line, 3u);
  EXPECT_EQ((*d)[3].new_line, 3u);
}

TEST(LineDiff, EmptySides) {
  EXPECT_TRUE(line_diff("", "")->empty());
  const auto added = *line_diff("", "x\ny");
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(diff_stat(added).added, 2u);
  EXPECT_EQ(diff_stat(*line_diff("x\ny\n", "")).removed, 2u);
  EXPECT_EQ(split_lines("no newline"), std::vector<std::string>{"no newline"});
}

TEST(LineDiff, MinimalAndFaithfulOnRandomTexts) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> a, b;
    const int n = static_cast<int>(rng() % 12), m = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) a.push_back(std::string(1, static_cast<char>('a' + rng() % 4)));
    for (int i = 0; i < m; ++i) b.push_back(std::string(1, static_cast<char>('a' + rng() % 4)));
    const auto d = line_diff(join(a), join(b));
    ASSERT_TRUE(d.has_value());
    expect_reconstructs(*d, join(a), join(b));
    const DiffStat s = diff_stat(*d);
    EXPECT_EQ(s.added + s.removed, a.size() + b.size() - 2 * lcs(a, b)) << join(a) << "--\n" << join(b);
  }
}

TEST(LineDiff, GivesUpBeyondTheEditBound) {
  std::string a, b;
  for (int i = 0; i < 50; ++i) {
    a += "a" + std::to_string(i) + "\n";
    b += "b" + std::to_string(i) + "\n";
  }
  EXPECT_FALSE(line_diff(a, b, 10).has_value());
  EXPECT_TRUE(line_diff(a, b, 100).has_value());
}

}  // namespace
}  // namespace kh::report
