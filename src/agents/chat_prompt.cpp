#include "agents/chat_prompt.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "agents/task_text.h"

namespace kh::agents {

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fence longer than any run of backticks inside, so embedded fences cannot close it.
std::string fence_for(const std::string& text) {
  std::size_t longest = 0;
  std::size_t run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

std::string file_section(const std::filesystem::path& ws, const std::string& rel, const std::string& lang) {
  const auto p = ws / rel;
  if (!std::filesystem::is_regular_file(p)) return {};
  const std::string text = read_text(p);
  const std::string fence = fence_for(text);
  return fmt::format("\n## {}\n{}{}\n{}{}{}\n", rel, fence, lang, text,
                     text.empty() || text.back() == '\n' ? "" : "\n", fence);
}

}  // namespace

std::string chat_system_prompt() {
  return "You are an expert GPU and CPU kernel engineer. You improve one kernel at a time, keep it exactly "
         "correct, and answer only with complete files in named fenced code blocks as the task describes.";
}

std::string chat_prompt(const ProposalContext& c, const AnswerLimits& limits) {
  const auto& ws = c.workspace;
  std::string p = task_markdown(c, limits, AnswerChannel::fenced);
  p += "\n# Workspace\n";
  p += file_section(ws, "definition.json", "json");
  p += file_section(ws, "parent/solution.json", "json");
  p += file_section(ws, "hypothesis.json", "json");
  if (std::filesystem::exists(ws / "profile.md")) {
    p += file_section(ws, "profile.md", "markdown");
  } else {
    p += file_section(ws, "profile.json", "json");
  }
  p += file_section(ws, "history.json", "json");
  p += file_section(ws, "skills.md", "markdown");
  return p;
}

}  // namespace kh::agents
