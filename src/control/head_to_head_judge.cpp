#include "control/head_to_head_judge.h"

#include <algorithm>
#include <cmath>

namespace kh::control {
namespace {

std::optional<double> geomean(std::span<const std::optional<double>> values) {
  double log_sum = 0;
  std::size_t n = 0;
  for (const auto& v : values) {
    if (!v || !(*v > 0)) return std::nullopt;  // a pass without a figure leaves no mean
    log_sum += std::log(*v);
    ++n;
  }
  if (n == 0) return std::nullopt;
  return std::exp(log_sum / static_cast<double>(n));
}

// Relative spread of the per-pass figures: max / min - 1.
double spread(std::span<const std::optional<double>> values) {
  double lo = 0, hi = 0;
  for (const auto& v : values) {
    if (!v) continue;
    lo = lo == 0 ? *v : std::min(lo, *v);
    hi = std::max(hi, *v);
  }
  return lo > 0 ? hi / lo - 1 : 0;
}

std::optional<double> ratio_in(const std::map<std::string, Sweep>& pass, const std::string& slower_id,
                               const std::string& faster_id) {
  const auto s = pass.find(slower_id), f = pass.find(faster_id);
  if (s == pass.end() || f == pass.end()) return std::nullopt;
  return paired_speedup(s->second, f->second);
}

double sweeps_noise(const HeadToHeadInput& in, const std::string& a, const std::string& b) {
  double noise = in.min_noise;
  for (const auto& pass : in.passes) {
    for (const std::string* id : {&a, &b}) {
      const auto it = pass.find(*id);
      if (it != pass.end()) noise = std::max(noise, it->second.noise());
    }
  }
  return noise;
}

}  // namespace

std::string head_to_head_verdict(std::span<const std::optional<double>> passes, double noise) {
  if (passes.empty()) return "ambiguous";
  bool faster = true, slower = true, same = true;
  for (const auto& r : passes) {
    if (!r) return "ambiguous";
    faster = faster && *r > 1 + noise;
    slower = slower && *r < 1 / (1 + noise);
    same = same && *r <= 1 + noise && *r >= 1 / (1 + noise);
  }
  return faster ? "faster" : slower ? "slower" : same ? "same" : "ambiguous";
}

report::HeadToHead judge_head_to_head(const HeadToHeadInput& in) {
  report::HeadToHead h;
  h.protocol = "robust";
  h.passes = static_cast<int>(in.passes.size());
  for (const auto& pass : in.passes) {
    for (const auto& [id, sweep] : pass) h.runs.push_back(sweep.run_id);
    if (!pass.empty()) h.protocol = pass.begin()->second.protocol;
  }
  for (const auto& [arm, best] : in.arms) {
    report::ArmHeadToHead a{arm, best, std::nullopt, {}};
    for (const auto& pass : in.passes) a.passes.push_back(ratio_in(pass, in.start, best));
    a.over_start = geomean(a.passes);
    h.arms.push_back(std::move(a));
  }
  for (std::size_t i = 0; i < in.arms.size(); ++i) {
    for (std::size_t j = i + 1; j < in.arms.size(); ++j) {
      report::ArmPair p;
      p.a = in.arms[i].first;
      p.b = in.arms[j].first;
      for (const auto& pass : in.passes)
        p.passes.push_back(ratio_in(pass, in.arms[j].second, in.arms[i].second));
      p.ratio = geomean(p.passes);
      p.noise = sweeps_noise(in, in.arms[i].second, in.arms[j].second);
      p.drift = spread(p.passes);
      p.verdict = head_to_head_verdict(p.passes, p.noise);
      h.pairs.push_back(std::move(p));
    }
  }
  return h;
}

}  // namespace kh::control
