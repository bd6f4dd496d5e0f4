#include "agents/fenced_answer.h"

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <set>

#include "agents/answer_paths.h"

namespace kh::agents {

namespace {

std::size_t backticks(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && line[n] == '`') ++n;
  return n;
}

std::string_view rstrip(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<std::string> name_in_info(std::string_view info) {
  static const std::regex re(R"((?:^|\s)file=("[^"]*"|\S+))");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(info.begin(), info.end(), m, re)) return std::nullopt;
  std::string name = m[1].str();
  if (name.size() >= 2 && name.front() == '"') name = name.substr(1, name.size() - 2);
  return name;
}

std::optional<std::string> name_in_first_line(std::string_view line) {
  static const std::regex re(R"(^\s*//\s*file:\s*(\S+)\s*$)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(line.begin(), line.end(), m, re)) return std::nullopt;
  return m[1].str();
}

}  // namespace

FencedFiles parse_fenced_files(std::string_view reply) {
  FencedFiles out;
  std::vector<std::string_view> lines;
  for (std::size_t pos = 0; pos <= reply.size();) {
    const auto nl = reply.find('\n', pos);
    lines.push_back(
        rstrip(reply.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos)));
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t fence = backticks(lines[i]);
    if (fence < 3) continue;
    const std::string_view info = lines[i].substr(fence);
    std::size_t end = i + 1;
    while (end < lines.size() &&
           !(backticks(lines[end]) >= fence && lines[end].size() == backticks(lines[end]))) {
      ++end;
    }
    std::optional<std::string> name = name_in_info(info);
    std::size_t first = i + 1;
    if (!name && first < end) {
      name = name_in_first_line(lines[first]);
      if (name) ++first;
    }
    if (end == lines.size()) {
      if (name) out.problem = fmt::format("the code block for '{}' is not closed (reply cut short?)", *name);
      break;
    }
    if (name) {
      std::string content;
      for (std::size_t k = first; k < end; ++k) content.append(lines[k]).append("\n");
      out.files.push_back({*name, std::move(content)});
    }
    i = end;
  }
  return out;
}

std::optional<std::string> write_fenced_files(const std::vector<FencedFile>& files,
                                              const std::filesystem::path& out_dir) {
  std::set<std::string> seen;
  for (const FencedFile& f : files) {
    if (auto why = path_problem(f.path)) return fmt::format("file name '{}' {}", f.path, *why);
    if (!seen.insert(f.path).second) return fmt::format("file '{}' is given twice", f.path);
  }
  try {
    for (const FencedFile& f : files) {
      const auto p = out_dir / f.path;
      std::filesystem::create_directories(p.parent_path());
      std::ofstream(p, std::ios::binary | std::ios::trunc) << f.content;
    }
  } catch (const std::filesystem::filesystem_error& e) {
    return fmt::format("cannot lay out the files (a name used both as file and folder?): {}", e.what());
  }
  return std::nullopt;
}

}  // namespace kh::agents
