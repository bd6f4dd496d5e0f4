#include "agents/skill_composer.h"

#include <fmt/format.h>

#include <algorithm>

namespace kh::agents {

namespace {

bool operator_specific(const Skill& s) {
  return std::none_of(s.operators.begin(), s.operators.end(),
                      [](const std::string& p) { return p.find_first_of("*?[") != std::string::npos; });
}

bool prompt_order(const Skill* a, const Skill* b) {
  if (a->priority != b->priority) return a->priority > b->priority;
  if (operator_specific(*a) != operator_specific(*b)) return operator_specific(*a);
  return a->name < b->name;
}

std::string section(const Skill& s) { return fmt::format("<!-- skill: {} -->\n{}\n\n", s.name, s.body); }

std::string left_out_note(const std::vector<ComposedSkill>& left_out) {
  if (left_out.empty()) return {};
  std::string note = "<!-- skills left out to fit the token budget:";
  for (const auto& s : left_out)
    note += fmt::format(" {} (priority {}, ~{} tokens);", s.name, s.priority, s.tokens);
  note.back() = ' ';
  return note + "-->\n";
}

ComposedSkill summary(const Skill& s) {
  return ComposedSkill{s.name, s.path.string(), s.priority, estimate_tokens(section(s))};
}

}  // namespace

std::size_t estimate_tokens(std::string_view text) { return (text.size() + 3) / 4; }

nlohmann::ordered_json ComposedSkills::json() const {
  auto list = [](const std::vector<ComposedSkill>& v) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& s : v) {
      a.push_back({{"name", s.name}, {"path", s.path}, {"priority", s.priority}, {"tokens", s.tokens}});
    }
    return a;
  };
  return {
      {"tokens", tokens}, {"included", list(included)}, {"left_out", list(left_out)}, {"markdown", markdown}};
}

ComposedSkills compose_skills(const std::vector<Skill>& skills, const SkillQuery& query) {
  std::vector<const Skill*> chosen;
  for (const Skill& s : skills) {
    if (s.applies_to(query.definition, query.regime, query.stage)) chosen.push_back(&s);
  }
  std::stable_sort(chosen.begin(), chosen.end(), prompt_order);

  ComposedSkills out;
  std::vector<ComposedSkill> kept;
  kept.reserve(chosen.size());
  for (const Skill* s : chosen) kept.push_back(summary(*s));
  // Drop from the end (lowest priority) until the text, with its note on what was
  // dropped, fits. The note grows as skills leave, so it is recounted every time.
  auto total = [&] {
    std::size_t t = estimate_tokens(left_out_note(out.left_out));
    for (const auto& k : kept) t += k.tokens;
    return t;
  };
  while (query.budget > 0 && !kept.empty() && total() > query.budget) {
    out.left_out.insert(out.left_out.begin(), kept.back());
    kept.pop_back();
    chosen.pop_back();
  }
  for (const Skill* s : chosen) out.markdown += section(*s);
  out.markdown += left_out_note(out.left_out);
  out.included = std::move(kept);
  out.tokens = estimate_tokens(out.markdown);
  return out;
}

}  // namespace kh::agents
