#include "agents/skill.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <charconv>

#include "error/error.h"

namespace kh::agents {

namespace {

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Everything before a `#` that is outside quotes.
std::string_view strip_comment(std::string_view line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return line.substr(0, i);
    }
  }
  return line;
}

std::string unquote(std::string_view s, const Location& where) {
  s = trim(s);
  if (!s.empty() && (s.front() == '"' || s.front() == '\'')) {
    if (s.size() < 2 || s.back() != s.front()) throw Error(where, "unterminated quoted string");
    return std::string(s.substr(1, s.size() - 2));
  }
  return std::string(s);
}

std::vector<std::string> parse_list(std::string_view value, const Location& where) {
  value = trim(value);
  if (value.empty() || value.front() != '[') return {unquote(value, where)};
  if (value.back() != ']') throw Error(where, "a list must end with ']'");
  std::vector<std::string> items;
  std::string_view inner = value.substr(1, value.size() - 2);
  while (!trim(inner).empty()) {
    const auto comma = inner.find(',');
    std::string item = unquote(inner.substr(0, comma), where);
    if (item.empty()) throw Error(where, "empty item in list");
    items.push_back(std::move(item));
    if (comma == std::string_view::npos) break;
    inner.remove_prefix(comma + 1);
  }
  if (items.empty()) throw Error(where, "empty list (leave the key out for the default)");
  return items;
}

int parse_priority(std::string_view value, const Location& where) {
  const std::string v = unquote(value, where);
  int p = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), p);
  if (ec != std::errc{} || end != v.data() + v.size() || p < 0 || p > 100) {
    throw Error(where, fmt::format("priority '{}' is not an integer from 0 to 100", v));
  }
  return p;
}

bool glob_match(const std::string& pattern, std::string_view text) {
  return ::fnmatch(pattern.c_str(), std::string(text).c_str(), 0) == 0;
}

bool any_match(const std::vector<std::string>& patterns, std::string_view text) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return glob_match(p, text); });
}

void set_key(Skill& skill, std::string_view key, std::string_view value, const Location& where) {
  if (key == "operators") {
    skill.operators = parse_list(value, where);
  } else if (key == "regimes") {
    skill.regimes = parse_list(value, where);
  } else if (key == "stages") {
    skill.stages = parse_list(value, where);
    for (const auto& s : skill.stages) {
      if (s != "explore" && s != "exploit") {
        throw Error(where, fmt::format("stage '{}' is neither explore nor exploit", s));
      }
    }
  } else if (key == "priority") {
    skill.priority = parse_priority(value, where);
  } else {
    throw Error(where, "unknown key (known: operators, regimes, stages, priority)");
  }
}

}  // namespace

bool Skill::applies_to(std::string_view definition, std::string_view regime, std::string_view stage) const {
  if (!any_match(operators, definition)) return false;
  const bool any_regime =
      regime.empty() || regime == "all" || std::find(regimes.begin(), regimes.end(), "all") != regimes.end();
  if (!any_regime && !any_match(regimes, regime)) return false;
  return stage.empty() || std::find(stages.begin(), stages.end(), stage) != stages.end();
}

Skill parse_skill(std::string_view text, const std::filesystem::path& path, std::string name) {
  Skill skill;
  skill.name = std::move(name);
  skill.path = path;
  std::size_t pos = 0;
  auto next_line = [&]() {
    const auto nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    return line;
  };
  if (trim(next_line()) != "---") {
    throw Error(Location{path.string(), 1, ""}, "a skill starts with front matter: '---' on the first line");
  }
  std::size_t line_no = 1;
  for (;;) {
    if (pos >= text.size())
      throw Error(Location{path.string(), line_no, ""}, "front matter has no closing '---'");
    ++line_no;
    const std::string_view raw = next_line();
    if (trim(raw) == "---") break;
    const std::string_view line = trim(strip_comment(raw));
    if (line.empty()) continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      throw Error(Location{path.string(), line_no, ""}, "expected 'key: value'");
    }
    const std::string key(trim(line.substr(0, colon)));
    set_key(skill, key, line.substr(colon + 1), Location{path.string(), line_no, key});
  }
  const std::string_view body = text.substr(pos);
  const auto b = body.find_first_not_of(" \t\r\n");
  skill.body = b == std::string_view::npos
                   ? ""
                   : std::string(body.substr(b, body.find_last_not_of(" \t\r\n") - b + 1));
  return skill;
}

}  // namespace kh::agents
