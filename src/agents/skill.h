// Skill: one Markdown file of advice for agents, with front matter saying where it applies.
//
// The front matter is a small YAML-like subset between two `---` lines at the very top:
//     ---
//     operators: [rmsnorm_*, softmax_h4096]   # shell globs over definition names
//     regimes: [all]                          # regime names (or globs); "all" = any
//     stages: [explore, exploit]
//     priority: 80                            # 0..100; higher is kept first
//     ---
// One `key: value` per line; a value is a scalar or a flow list `[a, b]`; items may be
// quoted ("..." or '...'); `#` starts a comment outside quotes; blank lines are skipped.
// Unknown keys are errors (a misspelt key would otherwise silently widen a skill).
// Missing keys take the widest default: operators [*], regimes [all], stages [explore,
// exploit], priority 50.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kh::agents {

struct Skill {
  std::string name;  // "forbidden_tricks", or "operator:rmsnorm_h128" for operator skills
  std::filesystem::path path;
  std::vector<std::string> operators{"*"};
  std::vector<std::string> regimes{"all"};
  std::vector<std::string> stages{"explore", "exploit"};
  int priority = 50;
  std::string body;  // the Markdown after the front matter

  // Whether this skill applies; an empty regime or stage in the query matches any.
  [[nodiscard]] bool applies_to(std::string_view definition, std::string_view regime,
                                std::string_view stage) const;
};

// Parses a skill file's text. Throws kh::Error naming `path`, the line and the key.
[[nodiscard]] Skill parse_skill(std::string_view text, const std::filesystem::path& path, std::string name);

}  // namespace kh::agents
