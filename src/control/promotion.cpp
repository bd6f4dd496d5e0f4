#include "control/promotion.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kh::control {

namespace {

// How far apart two sweeps of the same solution are: |ratio - 1|, weighed as the comparisons are.
double drift(const Sweep& a, const Sweep& b, Objective objective) {
  const std::optional<double> r = paired_speedup(a, b, objective);
  return r ? std::abs(*r - 1) : 0;
}

double noise_of(const PromotionInput& in, const PromotionRule& rule) {
  double noise = rule.min_noise;
  for (std::size_t i = 1; i < in.baseline.size(); ++i)
    noise = std::max(noise, drift(in.baseline[0], in.baseline[i], rule.objective));
  for (std::size_t i = 1; i < in.contender.size(); ++i)
    noise = std::max(noise, drift(in.contender[0], in.contender[i], rule.objective));
  for (const Sweep& s : in.baseline) noise = std::max(noise, s.noise());
  for (const Sweep& s : in.contender) noise = std::max(noise, s.noise());
  return noise;
}

void check_paired(const PromotionInput& in, const PromotionRule& rule, PromotionVerdict& v) {
  if (static_cast<int>(in.baseline.size()) < rule.repeats) {
    v.failures.push_back(
        fmt::format("paired baseline: {} repeat(s) of the retained best in this round, {} needed",
                    in.baseline.size(), rule.repeats));
  }
  for (std::size_t i = 0; i < in.baseline.size(); ++i) {
    if (!in.baseline[i].all_passed()) {
      v.failures.push_back(fmt::format("paired baseline: the retained best passed {}/{} in repeat {} ({})",
                                       in.baseline[i].passed(), in.baseline[i].workloads.size(), i + 1,
                                       in.baseline[i].worst_status()));
    }
  }
}

void check_all_passed(const PromotionInput& in, PromotionVerdict& v) {
  std::vector<const Sweep*> sweeps;
  for (const Sweep& s : in.contender) sweeps.push_back(&s);
  if (in.contender_confirm) sweeps.push_back(&*in.contender_confirm);
  for (const Sweep* s : sweeps) {
    if (!s->all_passed()) {
      v.failures.push_back(fmt::format("N/N: the contender passed {}/{} workloads in a {} sweep ({})",
                                       s->passed(), s->workloads.size(), s->protocol, s->worst_status()));
      return;
    }
  }
}

void check_repeats(const PromotionInput& in, const PromotionRule& rule, PromotionVerdict& v) {
  const std::size_t n = std::min(in.baseline.size(), in.contender.size());
  for (std::size_t i = 0; i < n; ++i) {
    RepeatComparison c;
    c.repeat = static_cast<int>(i + 1);
    c.speedup = paired_speedup(in.baseline[i], in.contender[i], rule.objective);
    c.better = c.speedup && *c.speedup > 1 + v.noise;
    v.better_repeats += c.better ? 1 : 0;
    v.repeats.push_back(c);
  }
  if (v.better_repeats < rule.repeats) {
    v.failures.push_back(
        fmt::format("better than the retained best by more than the noise ({:.1f}%) in {} of {} "
                    "repeat(s); {} needed",
                    100 * v.noise, v.better_repeats, n, rule.repeats));
  }
}

void check_confirmation(const PromotionInput& in, const PromotionRule& rule, PromotionVerdict& v) {
  if (!in.baseline_confirm || !in.contender_confirm) {
    v.failures.push_back("confirmation: no sweep of both with the other timing protocol");
    return;
  }
  v.confirm_noise = std::max({rule.min_noise, in.baseline_confirm->noise(), in.contender_confirm->noise()});
  v.confirm_speedup = paired_speedup(*in.baseline_confirm, *in.contender_confirm, rule.objective);
  v.confirmed = v.confirm_speedup && *v.confirm_speedup > 1 + v.confirm_noise;
  if (!v.confirmed) {
    v.failures.push_back(fmt::format(
        "confirmation: the {} protocol in a fresh worker measured a speedup of {} "
        "(more than {:.3f} needed)",
        in.contender_confirm->protocol,
        v.confirm_speedup ? fmt::format("{:.3f}", *v.confirm_speedup) : "none", 1 + v.confirm_noise));
  }
}

nlohmann::ordered_json optional_number(const std::optional<double>& x) {
  return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json(nullptr);
}

}  // namespace

PromotionVerdict judge_promotion(const PromotionInput& input, const PromotionRule& rule) {
  PromotionVerdict v;
  v.noise = noise_of(input, rule);
  check_paired(input, rule, v);
  check_all_passed(input, v);
  check_repeats(input, rule, v);
  check_confirmation(input, rule, v);
  v.promote = v.failures.empty();
  return v;
}

nlohmann::ordered_json PromotionRule::json() const {
  nlohmann::ordered_json j = {{"repeats", repeats}, {"min_noise", min_noise}};
  if (objective != Objective::geomean) j["objective"] = objective_name(objective);
  if (rebaseline_after_s != PromotionRule{}.rebaseline_after_s) j["rebaseline_after_s"] = rebaseline_after_s;
  return j;
}

nlohmann::ordered_json PromotionVerdict::json() const {
  nlohmann::ordered_json reps = nlohmann::ordered_json::array();
  for (const RepeatComparison& r : repeats) {
    reps.push_back({{"repeat", r.repeat}, {"speedup", optional_number(r.speedup)}, {"better", r.better}});
  }
  return {{"promote", promote},
          {"noise", noise},
          {"repeats", std::move(reps)},
          {"better_repeats", better_repeats},
          {"confirm_speedup", optional_number(confirm_speedup)},
          {"confirm_noise", confirm_noise},
          {"confirmed", confirmed},
          {"failures", failures}};
}

}  // namespace kh::control
