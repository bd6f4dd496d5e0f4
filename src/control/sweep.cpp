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

std::optional<double> paired_speedup(const Sweep& baseline, const Sweep& candidate, Objective objective) {
  double log_sum = 0, baseline_sum = 0, candidate_sum = 0;
  std::size_t n = 0;
  for (const SweepWorkload& b : baseline.workloads) {
    if (!b.latency_ms || *b.latency_ms <= 0) continue;
    const auto c = std::find_if(candidate.workloads.begin(), candidate.workloads.end(),
                                [&](const SweepWorkload& w) { return w.uuid == b.uuid; });
    if (c == candidate.workloads.end() || !c->latency_ms || *c->latency_ms <= 0) continue;
    log_sum += std::log(*b.latency_ms / *c->latency_ms);
    baseline_sum += *b.latency_ms;
    candidate_sum += *c->latency_ms;
    ++n;
  }
  if (n == 0) return std::nullopt;
  if (objective == Objective::mean) return baseline_sum / candidate_sum;
  return std::exp(log_sum / static_cast<double>(n));
}

}  // namespace kh::control
