// A line diff (Myers' O((N+M)D) algorithm): the shortest edit script turning one text
// into another, as kept, removed and added lines. Used by the dashboard to show a
// candidate's sources against its parent's.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kh::report {

enum class DiffOp { same, removed, added };

struct DiffLine {
  DiffOp op = DiffOp::same;
  std::string text;
  std::size_t old_line = 0;  // 1-based; 0 for an added line
  std::size_t new_line = 0;  // 1-based; 0 for a removed line
};

// Splits on '\n'; a final line without one is still a line, "" has none.
[[nodiscard]] std::vector<std::string> split_lines(std::string_view text);

// nullopt when more than `max_edits` lines differ (the caller then shows both whole),
// which bounds time and memory to O((N+M) * max_edits).
[[nodiscard]] std::optional<std::vector<DiffLine>> line_diff(std::string_view old_text,
                                                             std::string_view new_text,
                                                             std::size_t max_edits = 2000);

// Lines added and removed in a diff.
struct DiffStat {
  std::size_t added = 0;
  std::size_t removed = 0;
};
[[nodiscard]] DiffStat diff_stat(const std::vector<DiffLine>& diff);

}  // namespace kh::report
