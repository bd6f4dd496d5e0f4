#include "control/sweep.h"

#include <algorithm>
#include <cmath>

namespace kh::control {

std::size_t Sweep::passed() const {
  return static_cast<std::size_t>(std::count_if(workloads.begin(), workloads.end(),
                                                [](const SweepWorkload& w) { return w.status == "PASSED"; }));
}

double Sweep::noise() const {
  std::vector<double> values;
  for (const SweepWorkload& w : workloads) {
    if (w.latency_ms) values.push_back(w.noise);
  }
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string Sweep::worst_status() const {
  for (const SweepWorkload& w : workloads) {
    if (w.status != "PASSED") return w.status;
  }
  return "PASSED";
}

nlohmann::ordered_json Sweep::json() const {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const SweepWorkload& w : workloads) {
    nlohmann::ordered_json j = {{"workload", w.uuid}, {"status", w.status}};
    j["latency_ms"] = w.latency_ms ? nlohmann::ordered_json(*w.latency_ms) : nlohmann::ordered_json(nullptr);
    j["noise"] = w.noise;
    list.push_back(std::move(j));
  }
  return {
      {"run_id", run_id}, {"protocol", protocol}, {"passed", passed()},          {"total", workloads.size()},
      {"noise", noise()}, {"reused", reused},     {"workloads", std::move(list)}};
}

std::string_view objective_name(Objective objective) {
  return objective == Objective::mean ? "mean" : "geomean";
}

std::optional<Objective> parse_objective(std::string_view name) {
  if (name == "geomean") return Objective::geomean;
  if (name == "mean") return Objective::mean;
  return std::nullopt;
}

std::optional<PairedLatency> paired_latency(const Sweep& baseline, const Sweep& candidate,
                                            Objective objective) {
  double baseline_sum = 0, candidate_sum = 0;  // of logs under geomean
  std::size_t n = 0;
  for (const SweepWorkload& b : baseline.workloads) {
    if (!b.latency_ms || *b.latency_ms <= 0) continue;
    const auto c = std::find_if(candidate.workloads.begin(), candidate.workloads.end(),
                                [&](const SweepWorkload& w) { return w.uuid == b.uuid; });
    if (c == candidate.workloads.end() || !c->latency_ms || *c->latency_ms <= 0) continue;
    const bool logs = objective == Objective::geomean;
    baseline_sum += logs ? std::log(*b.latency_ms) : *b.latency_ms;
    candidate_sum += logs ? std::log(*c->latency_ms) : *c->latency_ms;
    ++n;
  }
  if (n == 0) return std::nullopt;
  const auto n_d = static_cast<double>(n);
  if (objective == Objective::mean) return PairedLatency{baseline_sum / n_d, candidate_sum / n_d};
  return PairedLatency{std::exp(baseline_sum / n_d), std::exp(candidate_sum / n_d)};
}

std::optional<double> paired_speedup(const Sweep& baseline, const Sweep& candidate, Objective objective) {
  const std::optional<PairedLatency> p = paired_latency(baseline, candidate, objective);
  if (!p) return std::nullopt;
  return p->baseline_ms / p->candidate_ms;
}

}  // namespace kh::control
