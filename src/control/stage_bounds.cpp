#include "control/stage_bounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace kh::control {

StageSelection select_for_stage(const std::vector<std::string>& families, const StageBounds& bounds,
                                std::size_t budget) {
  StageSelection s;
  const std::size_t limit = std::min(bounds.max_candidates, budget);
  std::vector<std::string> order;
  std::vector<std::vector<std::size_t>> members;  // per family, in the order offered
  for (std::size_t i = 0; i < families.size(); ++i) {
    auto it = std::find(order.begin(), order.end(), families[i]);
    if (it == order.end()) {
      order.push_back(families[i]);
      members.emplace_back();
      it = order.end() - 1;
    }
    members[static_cast<std::size_t>(it - order.begin())].push_back(i);
  }
  for (std::size_t depth = 0; s.chosen.size() < limit; ++depth) {
    const std::size_t before = s.chosen.size();
    for (std::size_t f = 0; f < members.size() && s.chosen.size() < limit; ++f) {
      if (depth < members[f].size()) s.chosen.push_back(members[f][depth]);
    }
    if (s.chosen.size() == before) break;
  }
  std::set<std::string> distinct;
  for (std::size_t i : s.chosen) distinct.insert(families[i]);
  s.families = distinct.size();
  std::vector<std::string> unmet;
  if (s.chosen.size() < bounds.min_candidates) {
    unmet.push_back(
        fmt::format("{} candidate(s), at least {} wanted", s.chosen.size(), bounds.min_candidates));
  }
  if (s.families < bounds.min_families) {
    unmet.push_back(fmt::format("{} famil{}, at least {} wanted", s.families, s.families == 1 ? "y" : "ies",
                                bounds.min_families));
  }
  s.within_bounds = unmet.empty();
  if (!unmet.empty()) {
    s.note = fmt::format("{}: {} ({} offered, budget {}); the stage runs what there is", bounds.stage,
                         fmt::join(unmet, "; "), families.size(), budget);
  }
  return s;
}

nlohmann::ordered_json StageSelection::json() const {
  return {
      {"chosen", chosen.size()}, {"families", families}, {"within_bounds", within_bounds}, {"note", note}};
}

}  // namespace kh::control
