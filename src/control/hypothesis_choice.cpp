#include "control/hypothesis_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

namespace kh::control {
namespace {

using json = nlohmann::ordered_json;

// Generic directions that apply to any kernel, so stage 1 can reach three families even
// when the diagnosis names fewer. Scored far below any diagnosis rule (40-100), so they
// are only taken when the evidence offers nothing new.
struct CatalogueEntry {
  const char* family;
  const char* direction;
  double score;
};
constexpr std::array kCatalogue = {
    CatalogueEntry{"knobs", "tune the declared knobs (tile sizes, vector width, unrolling) within bounds", 9},
    CatalogueEntry{"memory_access", "vectorise and coalesce loads and stores", 8},
    CatalogueEntry{"parallelism", "spread the work over more threads and blocks (split the long axis)", 7},
    CatalogueEntry{"restructure", "restructure the kernel: one block per output tile, fused stages", 6},
    CatalogueEntry{"data_reuse", "tile for reuse in shared memory or registers", 5},
    CatalogueEntry{"launch_overhead", "one kernel per call, no host work or allocation", 4},
};

struct Option {
  agents::Hypothesis hypothesis;
  double score = 0;
  const char* source = "diagnosis";
};

std::uint64_t tie_break(std::uint64_t seed, const agents::Hypothesis& h) {
  std::uint64_t x = 1469598103934665603ULL ^ seed;  // FNV-1a, seeded
  for (const std::string* s : {&h.regime, &h.family, &h.direction})
    for (const char c : *s + '\x1f') x = (x ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return x;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::vector<Option> options_of(const std::vector<RegimeDiagnosis>& diagnosis) {
  std::vector<RegimeDiagnosis> regimes = diagnosis;
  if (regimes.empty()) regimes.push_back({"all", 1.0, {}});
  std::vector<Option> out;
  for (const RegimeDiagnosis& r : regimes) {
    const double weight = 0.5 + r.cost_share;  // a heavy regime matters more, a light one still counts
    for (const profile::Direction& d : r.diagnosis.directions)
      out.push_back(
          {{r.regime, d.title, d.family, fmt::format("{}-bound: {}", r.diagnosis.bottleneck, d.why), ""},
           d.score * weight});
    for (const CatalogueEntry& c : kCatalogue) {
      const bool covered = std::any_of(r.diagnosis.directions.begin(), r.diagnosis.directions.end(),
                                       [&](const profile::Direction& d) { return d.family == c.family; });
      if (!covered)
        out.push_back(
            {{r.regime, c.direction, c.family, "a generic direction (no rule points elsewhere)", ""},
             c.score * weight,
             "catalogue"});
    }
  }
  return out;
}

bool same_idea(const agents::Hypothesis& a, const agents::Hypothesis& b) {
  return a.regime == b.regime && a.family == b.family && a.direction == b.direction;
}

// Families that promoted, best speedup first: what stage 2 exploits (at most 3).
std::vector<std::string> promoted_families(const ChoiceInput& in) {
  std::map<std::string, double> best;
  auto note = [&](const std::string& family, std::optional<double> delta) {
    const double d = delta.value_or(0);
    auto [it, fresh] = best.emplace(family, d);
    if (!fresh) it->second = std::max(it->second, d);
  };
  for (const RoundRecord& r : in.history)
    if (r.decision == archive::DecisionKind::promote)
      note(r.technique_family(), r.speedup() ? std::optional(*r.speedup() - 1) : std::nullopt);
  for (const MemoryEntry& e : in.memory.entries())
    if (e.outcome == Outcome::promoted) note(technique_family(e), e.speedup_delta);
  std::vector<std::pair<std::string, double>> ranked(best.begin(), best.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ranked.size() && i < 3; ++i) out.push_back(ranked[i].first);
  return out;
}

// Lower is better, compared field by field.
using Rank = std::tuple<int, std::size_t, int, double, std::uint64_t>;

Rank rank_of(const Option& o, const ChoiceInput& in, const std::vector<std::string>& explored,
             const std::vector<std::string>& promoted) {
  const agents::Hypothesis& h = o.hypothesis;
  const int blocked = in.memory.failed(h) ? 2
                      : contains(in.verdict.exclude_families, h.family) ||
                              contains(in.verdict.exclude_directions, h.direction)
                          ? 1
                          : 0;
  std::size_t family_rank = 0;
  int tried = 0;
  if (in.stage == Stage::explore) {
    family_rank = contains(explored, h.family) ? 1 : 0;
    tried =
        in.memory.tried(h) || std::any_of(in.history.begin(), in.history.end(),
                                          [&](const RoundRecord& r) { return same_idea(r.hypothesis, h); });
  } else {
    const auto it = std::find(promoted.begin(), promoted.end(), h.family);
    family_rank = static_cast<std::size_t>(it - promoted.begin());  // promoted.size() when not promoted
  }
  return {blocked, family_rank, tried, -o.score, tie_break(in.seed, h)};
}

// Where the time goes: the regime a directive without one aims at.
std::string heaviest_regime(const std::vector<RegimeDiagnosis>& diagnosis) {
  const auto it = std::max_element(diagnosis.begin(), diagnosis.end(),
                                   [](const auto& a, const auto& b) { return a.cost_share < b.cost_share; });
  return it == diagnosis.end() ? "all" : it->regime;
}

Choice from_directives(const ChoiceInput& in) {
  const Directive& first = in.directives.front();
  std::vector<std::string> texts;
  for (const Directive& d : in.directives) texts.push_back(d.text);
  Choice c;
  c.source = "directive";
  c.hypothesis.regime = !first.regime.empty() ? first.regime : heaviest_regime(in.diagnosis);
  c.hypothesis.family = first.family.empty() ? "directive" : first.family;
  c.hypothesis.direction = first.text;
  c.hypothesis.rationale = fmt::format("a person's directive ({} #{})", first.scope, first.id);
  c.hypothesis.directive = fmt::format("{}", fmt::join(texts, "\n"));
  c.reason = fmt::format("directive {} #{} takes precedence: \"{}\"", first.scope, first.id, first.text);
  return c;
}

}  // namespace

std::vector<RegimeDiagnosis> regime_diagnoses(const profile::ProfileReport& report) {
  std::vector<RegimeDiagnosis> out;
  for (const profile::RegimeProfile& r : report.regimes)
    out.push_back({r.regime.name, r.regime.cost_share, r.diagnosis});
  return out;
}

// By the family each round's candidate claimed: an agent asked for one family may try another, and
// then that other one is what the round explored, while the asked one is still untried.
std::vector<std::string> explored_families(const std::vector<RoundRecord>& history) {
  std::vector<std::string> out;
  for (const RoundRecord& r : history) {
    const std::string& family = r.technique_family();
    if (r.stage == Stage::explore && !family.empty() && !contains(out, family)) out.push_back(family);
  }
  return out;
}

nlohmann::ordered_json Choice::json() const {
  return {{"regime", hypothesis.regime},
          {"direction", hypothesis.direction},
          {"family", hypothesis.family},
          {"rationale", hypothesis.rationale},
          {"directive", hypothesis.directive},
          {"source", source},
          {"exhausted", exhausted},
          {"reason", reason}};
}

Choice choose_hypothesis(const ChoiceInput& in) {
  if (!in.directives.empty()) return from_directives(in);
  const std::vector<Option> options = options_of(in.diagnosis);
  const std::vector<std::string> explored = explored_families(in.history);
  const std::vector<std::string> promoted = promoted_families(in);
  std::vector<std::pair<Rank, const Option*>> ranked;
  ranked.reserve(options.size());
  for (const Option& o : options) ranked.emplace_back(rank_of(o, in, explored, promoted), &o);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const auto& [rank, best] = ranked.front();
  Choice c;
  c.hypothesis = best->hypothesis;
  c.source = best->source;
  c.exhausted = std::get<0>(rank) > 0;
  c.reason =
      fmt::format("{} stage: {} / {} / \"{}\" (score {:.1f}{}{}{})", stage_name(in.stage),
                  c.hypothesis.regime, c.hypothesis.family, c.hypothesis.direction, best->score,
                  in.stage == Stage::explore && std::get<1>(rank) == 0 ? ", a family not yet explored" : "",
                  std::get<2>(rank) != 0 ? ", tried before" : "",
                  c.exhausted ? ", every option was excluded or had failed: the least bad" : "");
  return c;
}

}  // namespace kh::control
