// The bounds of a round's two stages (docs/controller.md):
//   explore: 3 to 8 candidates across at least 3 technique families;
//   exploit: the best 1 to 3.
// The controller asks an agent for at most `max_candidates` and keeps, from what comes
// back, a selection that spreads over families: the first candidate of each family in
// the order offered, then the second of each, and so on. An agent that offers too few
// (a solution with one knob, a replay of one file) is not padded: the stage runs what
// there is and its evidence says which bound was not met.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kh::control {

struct StageBounds {
  std::string_view stage;
  std::size_t min_candidates = 1;
  std::size_t max_candidates = 1;
  std::size_t min_families = 1;
};

inline constexpr StageBounds kExploreBounds{"explore", 3, 8, 3};
inline constexpr StageBounds kExploitBounds{"exploit", 1, 3, 1};

struct StageSelection {
  std::vector<std::size_t> chosen;  // indices into the candidates offered, in evaluation order
  std::size_t families = 0;         // distinct families among the chosen
  bool within_bounds = false;
  std::string note;  // which bound was not met and why; empty when within

  [[nodiscard]] nlohmann::ordered_json json() const;
};

// `families[i]` is the family of the i-th candidate offered. `budget` caps the count
// further (the loop's remaining --max-candidates).
[[nodiscard]] StageSelection select_for_stage(const std::vector<std::string>& families,
                                              const StageBounds& bounds, std::size_t budget);

}  // namespace kh::control
