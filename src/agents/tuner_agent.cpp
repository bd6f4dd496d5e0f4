#include "agents/tuner_agent.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>

#include "agents/knobs.h"
#include "error/error.h"

namespace kh::agents {

namespace {

// Large enough for every shipped baseline's full grid; a bound all the same, so a
// solution declaring dozens of knobs cannot make the tuner enumerate millions.
constexpr std::size_t kGridLimit = 4096;

std::string family_of(const KnobSetting& from, const KnobSetting& to) {
  std::vector<std::string> moved;
  for (std::size_t i = 0; i < from.size() && i < to.size(); ++i) {
    if (from[i].second != to[i].second) moved.push_back(to[i].first);
  }
  return fmt::format("knobs:{}", fmt::join(moved, "+"));
}

std::string describe(const KnobSetting& from, const KnobSetting& to) {
  std::vector<std::string> moves;
  for (std::size_t i = 0; i < from.size() && i < to.size(); ++i) {
    if (from[i].second != to[i].second)
      moves.push_back(fmt::format("{} {}->{}", to[i].first, from[i].second, to[i].second));
  }
  return fmt::format("{}", fmt::join(moves, ", "));
}

// The setting a solution has compiled in, when it declares exactly these knobs.
std::optional<KnobSetting> setting_of(const Solution& s, const std::vector<Knob>& knobs) {
  std::vector<Knob> theirs;
  try {
    theirs = parse_knobs(s);
  } catch (const Error&) {
    return std::nullopt;  // another agent's candidate with a malformed knob: not one of ours
  }
  if (theirs.size() != knobs.size()) return std::nullopt;
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    if (theirs[i].name != knobs[i].name) return std::nullopt;
  }
  return default_setting(theirs);
}

// Round-robin over families in order of first appearance, starting at a family the seed
// picks, until `limit` settings are taken.
std::vector<KnobSetting> diverse(const std::vector<KnobSetting>& pool, const KnobSetting& from,
                                 std::size_t limit, std::uint64_t seed) {
  std::vector<std::string> order;
  std::vector<std::vector<KnobSetting>> groups;
  for (const KnobSetting& s : pool) {
    const std::string f = family_of(from, s);
    auto it = std::find(order.begin(), order.end(), f);
    if (it == order.end()) {
      order.push_back(f);
      groups.emplace_back();
      it = order.end() - 1;
    }
    groups[static_cast<std::size_t>(it - order.begin())].push_back(s);
  }
  std::vector<KnobSetting> out;
  if (groups.empty()) return out;
  const std::size_t start = static_cast<std::size_t>(seed % groups.size());
  for (std::size_t depth = 0; out.size() < limit; ++depth) {
    bool any = false;
    for (std::size_t g = 0; g < groups.size() && out.size() < limit; ++g) {
      const auto& group = groups[(start + g) % groups.size()];
      if (depth < group.size()) {
        out.push_back(group[depth]);
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}

}  // namespace

Proposal TunerAgent::propose(const ProposalContext& context) {
  const auto started = std::chrono::steady_clock::now();
  Proposal p;
  const std::vector<Knob> knobs = parse_knobs(context.parent);
  if (knobs.empty()) {
    p.transcript = fmt::format("{} declares no knobs (`// kh:param NAME in {{...}}`): nothing to tune",
                               context.parent.name);
    return p;
  }
  const KnobSetting current = default_setting(knobs);
  std::set<KnobSetting> tried{current};
  for (const Solution& h : context.history) {
    if (auto s = setting_of(h, knobs)) tried.insert(*s);
  }
  std::vector<KnobSetting> pool;
  const bool exploit = context.stage == "exploit";
  for (KnobSetting& s : exploit ? knob_neighbours(knobs, current) : knob_grid(knobs, kGridLimit)) {
    if (!tried.contains(s)) pool.push_back(std::move(s));
  }
  const std::vector<KnobSetting> chosen =
      exploit ? std::vector<KnobSetting>(
                    pool.begin(),
                    pool.begin() + static_cast<std::ptrdiff_t>(std::min(pool.size(), context.max_candidates)))
              : diverse(pool, current, context.max_candidates, context.seed);
  const Solution base = without_knobs(context.parent);
  for (const KnobSetting& s : chosen) {
    p.candidates.push_back(Candidate{with_knobs(base, s), family_of(current, s),
                                     fmt::format("{}: {}", context.stage, describe(current, s))});
  }
  p.transcript =
      fmt::format("tuner {} from {}: {} knob(s), {} untried setting(s), {} proposed", context.stage,
                  context.parent.name, knobs.size(), pool.size(), p.candidates.size());
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  p.cost_note = "no model calls";
  return p;
}

}  // namespace kh::agents
