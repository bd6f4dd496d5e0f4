// Trajectory supervision: after each round, read the loop's history and say whether to
// go on, change direction, or stop and ask a person. Deterministic: the same history and
// settings give the same verdict, with its reasons as text for the decision log.
//
// Signals (each judged at the newest round; docs/controller.md "Trajectory supervision"):
//   stall      - no promotion in the last `stall_rounds` rounds.
//   cycle      - the newest round repeats an earlier one: the same normalised content
//                hash, or (in the explore stage) the same regime, direction and family.
//                Exploit rounds refine one hypothesis on purpose, so there only the code
//                counts.
//   regression - the newest candidate is slower than the retained best beyond `noise`,
//                for the `regression_limit`-th time in its family; or the retained best,
//                re-measured, got slower beyond `noise` than when it was promoted.
//   plateau    - over the last `plateau_window` rounds the retained best improved by
//                less than `plateau_gain` in all.
// Actions: stall, plateau and a slower retained best ask a person when `ask` is set;
// otherwise stall, plateau, cycle and family regressions change direction, excluding
// the families (plateau, stall, regression) or directions (cycle) concerned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "control/round_record.h"

namespace kh::control {

struct SupervisionSettings {
  std::size_t stall_rounds = 4;      // K: rounds without a promotion that make a stall
  std::size_t plateau_window = 5;    // rounds over which the gain is measured
  double plateau_gain = 0.01;        // total relative gain below which the window is a plateau
  double noise = 0.02;               // relative change that timing noise can explain
  std::size_t regression_limit = 2;  // slower candidates in one family before it is excluded
  bool ask = false;                  // a person is there to ask (otherwise never stop)
};

enum class SignalKind { stall, cycle, regression, plateau };
[[nodiscard]] std::string_view signal_kind_name(SignalKind k) noexcept;

struct Signal {
  SignalKind kind = SignalKind::stall;
  std::int64_t round = 0;    // the round it was detected at
  std::int64_t earlier = 0;  // for a cycle: the round repeated; otherwise 0
  std::string reason;        // one sentence, with the numbers
};

// "continue" is a keyword, hence proceed.
enum class Action { proceed, change_direction, ask_person };
[[nodiscard]] std::string_view action_name(Action a) noexcept;  // "continue" | "change_direction" | "ask"

struct Verdict {
  Action action = Action::proceed;
  std::vector<Signal> signals;                  // in the order stall, cycle, regression, plateau
  std::vector<std::string> exclude_families;    // for the next hypothesis, sorted, unique
  std::vector<std::string> exclude_directions;  // likewise
  std::vector<std::string> reasons;             // lines for the decision log; never empty

  [[nodiscard]] bool has(SignalKind k) const noexcept;
  [[nodiscard]] nlohmann::ordered_json json() const;
};

// `history`: this loop's finished rounds, oldest first (round numbers increasing).
[[nodiscard]] Verdict supervise(std::span<const RoundRecord> history,
                                const SupervisionSettings& settings = {});

}  // namespace kh::control
