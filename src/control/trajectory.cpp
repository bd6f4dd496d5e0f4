#include "control/trajectory.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

namespace kh::control {
namespace {

using json = nlohmann::ordered_json;

// What the detectors found, before the action is settled.
struct Findings {
  std::vector<Signal> signals;
  std::vector<std::string> families;
  std::vector<std::string> directions;
  bool wants_person = false;      // a person could help (stall, plateau, slower best)
  bool wants_new_course = false;  // the loop itself should change direction
};

void add_family(Findings& f, const std::string& family) {
  if (!family.empty()) f.families.push_back(family);
}

void detect_stall(std::span<const RoundRecord> h, const SupervisionSettings& s, Findings& f) {
  std::size_t quiet = 0;
  while (quiet < h.size() && h[h.size() - 1 - quiet].decision != archive::DecisionKind::promote) ++quiet;
  if (s.stall_rounds == 0 || quiet < s.stall_rounds) return;
  for (std::size_t i = h.size() - s.stall_rounds; i < h.size(); ++i) add_family(f, h[i].hypothesis.family);
  f.signals.push_back(
      {SignalKind::stall, h.back().round, 0,
       fmt::format("stall: no promotion in the last {} rounds (limit {})", quiet, s.stall_rounds)});
  f.wants_person = f.wants_new_course = true;
}

bool same_hypothesis(const agents::Hypothesis& a, const agents::Hypothesis& b) {
  return a.regime == b.regime && a.direction == b.direction && a.family == b.family;
}

void detect_cycle(std::span<const RoundRecord> h, Findings& f) {
  const RoundRecord& now = h.back();
  for (std::size_t i = 0; i + 1 < h.size(); ++i) {
    const RoundRecord& then = h[i];
    std::string reason;
    if (!now.content_hash.empty() && now.content_hash == then.content_hash)
      reason = fmt::format("cycle: round {} proposed the same code as round {} (normalised content hash {})",
                           now.round, then.round, now.content_hash.substr(0, 12));
    else if (now.stage == Stage::explore && same_hypothesis(now.hypothesis, then.hypothesis))
      reason =
          fmt::format("cycle: round {} repeats round {}'s hypothesis ({} / {} / {})", now.round, then.round,
                      now.hypothesis.regime, now.hypothesis.family, now.hypothesis.direction);
    if (reason.empty()) continue;
    f.signals.push_back({SignalKind::cycle, now.round, then.round, std::move(reason)});
    if (!now.hypothesis.direction.empty()) f.directions.push_back(now.hypothesis.direction);
    f.wants_new_course = true;
    return;
  }
}

bool slower(const RoundRecord& r, double noise) {
  return r.candidate_ms && r.best_ms && *r.candidate_ms > *r.best_ms * (1 + noise);
}

void detect_family_regression(std::span<const RoundRecord> h, const SupervisionSettings& s, Findings& f) {
  const RoundRecord& now = h.back();
  if (!slower(now, s.noise)) return;
  const auto count = static_cast<std::size_t>(std::count_if(h.begin(), h.end(), [&](const RoundRecord& r) {
    return r.hypothesis.family == now.hypothesis.family && slower(r, s.noise);
  }));
  if (count < std::max<std::size_t>(s.regression_limit, 1)) return;
  f.signals.push_back(
      {SignalKind::regression, now.round, 0,
       fmt::format("regression: round {}'s candidate ({:.4g} ms) is slower than the retained best "
                   "({:.4g} ms) beyond {:.0f}% noise, the {} such candidate of family {}",
                   now.round, *now.candidate_ms, *now.best_ms, 100 * s.noise, count, now.hypothesis.family)});
  add_family(f, now.hypothesis.family);
  f.wants_new_course = true;
}

// The retained best re-measured: compared with its latency when it was promoted (or,
// before any promotion, with the first round's measurement of the starting point).
void detect_slower_best(std::span<const RoundRecord> h, const SupervisionSettings& s, Findings& f) {
  const RoundRecord& now = h.back();
  if (!now.best_ms || now.decision == archive::DecisionKind::promote) return;
  std::optional<double> then;
  std::int64_t then_round = h.front().round;
  for (std::size_t i = h.size() - 1; i-- > 0 && !then;) {
    if (h[i].decision == archive::DecisionKind::promote) {
      then = h[i].candidate_ms;
      then_round = h[i].round;
    }
  }
  if (!then) then = h.front().best_ms;
  if (!then || *now.best_ms <= *then * (1 + s.noise)) return;
  f.signals.push_back(
      {SignalKind::regression, now.round, then_round,
       fmt::format("regression: the retained best measured {:.4g} ms in round {}, {:.4g} ms in "
                   "round {}: slower beyond {:.0f}% noise (the machine or the timing drifted; "
                   "re-measure before promoting)",
                   *now.best_ms, now.round, *then, then_round, 100 * s.noise)});
  f.wants_person = true;
}

void detect_plateau(std::span<const RoundRecord> h, const SupervisionSettings& s, Findings& f) {
  const std::size_t w = s.plateau_window;
  if (w == 0 || h.size() < w) return;
  const std::size_t first = h.size() - w;
  const std::optional<double> start = first == 0 ? h.front().best_ms : h[first - 1].retained_ms();
  const std::optional<double> end = h.back().retained_ms();
  if (!start || !end || *end <= 0) return;
  const double gain = *start / *end - 1;
  if (gain >= s.plateau_gain) return;
  for (std::size_t i = first; i < h.size(); ++i) add_family(f, h[i].hypothesis.family);
  f.signals.push_back(
      {SignalKind::plateau, h.back().round, 0,
       fmt::format("plateau: the retained best went from {:.4g} ms to {:.4g} ms over the last {} "
                   "rounds, a gain of {:.2f}% (threshold {:.2f}%)",
                   *start, *end, w, 100 * gain, 100 * s.plateau_gain)});
  f.wants_person = f.wants_new_course = true;
}

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::string summary(std::span<const RoundRecord> h) {
  const std::optional<double> best = h.back().retained_ms();
  return best ? fmt::format("no signal after {} rounds; retained best {:.4g} ms", h.size(), *best)
              : fmt::format("no signal after {} rounds", h.size());
}

}  // namespace

std::string_view signal_kind_name(SignalKind k) noexcept {
  switch (k) {
    case SignalKind::stall:
      return "stall";
    case SignalKind::cycle:
      return "cycle";
    case SignalKind::regression:
      return "regression";
    case SignalKind::plateau:
      return "plateau";
  }
  return "?";
}

std::string_view action_name(Action a) noexcept {
  switch (a) {
    case Action::proceed:
      return "continue";
    case Action::change_direction:
      return "change_direction";
    case Action::ask_person:
      return "ask";
  }
  return "?";
}

bool Verdict::has(SignalKind k) const noexcept {
  return std::any_of(signals.begin(), signals.end(), [&](const Signal& s) { return s.kind == k; });
}

nlohmann::ordered_json Verdict::json() const {
  nlohmann::ordered_json sig = nlohmann::ordered_json::array();
  for (const Signal& s : signals)
    sig.push_back({{"kind", signal_kind_name(s.kind)},
                   {"round", s.round},
                   {"earlier", s.earlier},
                   {"reason", s.reason}});
  return {{"action", action_name(action)},
          {"signals", sig},
          {"exclude_families", exclude_families},
          {"exclude_directions", exclude_directions},
          {"reasons", reasons}};
}

Verdict supervise(std::span<const RoundRecord> history, const SupervisionSettings& settings) {
  Verdict v;
  if (history.empty()) {
    v.reasons.push_back("no rounds yet");
    return v;
  }
  Findings f;
  detect_stall(history, settings, f);
  detect_cycle(history, f);
  detect_family_regression(history, settings, f);
  detect_slower_best(history, settings, f);
  detect_plateau(history, settings, f);
  v.signals = std::move(f.signals);
  for (const Signal& s : v.signals) v.reasons.push_back(s.reason);
  if (settings.ask && f.wants_person) {
    v.action = Action::ask_person;
  } else if (f.wants_new_course) {
    v.action = Action::change_direction;
  }
  // Kept when asking too: if the person says go on, these are what not to retry.
  if (f.wants_new_course) {
    v.exclude_families = sorted_unique(std::move(f.families));
    v.exclude_directions = sorted_unique(std::move(f.directions));
  }
  if (v.signals.empty()) v.reasons.push_back(summary(history));
  std::string line = fmt::format("action: {}", action_name(v.action));
  if (!v.exclude_families.empty())
    line += fmt::format("; exclude families {}", fmt::join(v.exclude_families, ", "));
  if (!v.exclude_directions.empty())
    line += fmt::format("; exclude directions \"{}\"", fmt::join(v.exclude_directions, "\", \""));
  v.reasons.push_back(std::move(line));
  return v;
}

}  // namespace kh::control
