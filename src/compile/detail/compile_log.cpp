#include "compile/detail/compile_log.h"

#include <array>
#include <vector>

#include "compile/entry_shim.h"

namespace kh::detail {

namespace {
std::vector<std::string_view> split_lines(std::string_view log) {
  std::vector<std::string_view> lines;
  while (!log.empty()) {
    const std::size_t nl = log.find('\n');
    std::string_view line = log.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    log.remove_prefix(nl + 1);
  }
  return lines;
}

bool reports_error(std::string_view line) {
  static constexpr std::array<std::string_view, 4> kMarks{"error:", "error ", "undefined reference", "fatal"};
  for (std::string_view mark : kMarks) {
    if (line.find(mark) != std::string_view::npos) return true;
  }
  return false;
}

// g++ prints `static assertion failed: MSG`, nvcc `static assertion failed with "MSG"`;
// both also echo the source line, which holds the message in quotes: only the
// diagnostic line (the one that reports an error) is taken.
std::string shim_message(std::string_view line) {
  std::string_view msg = line.substr(line.find(kShimMessagePrefix));
  while (!msg.empty() && (msg.back() == '"' || msg.back() == ' ')) msg.remove_suffix(1);
  return std::string(msg);
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}
}  // namespace

std::string first_error_line(std::string_view log) {
  const std::vector<std::string_view> lines = split_lines(log);
  for (std::string_view line : lines) {
    if (reports_error(line) && line.find(kShimMessagePrefix) != std::string_view::npos)
      return shim_message(line);
  }
  for (std::string_view line : lines) {
    if (reports_error(line)) return trimmed(line);
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (!trimmed(*it).empty()) return trimmed(*it);
  }
  return {};
}

}  // namespace kh::detail
