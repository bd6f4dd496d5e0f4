#include "control/round_diagnosis.h"

#include <algorithm>

#include "eval/workload_shapes.h"

namespace kh::control {

std::vector<std::size_t> gate_workloads(const profile::RegimePlan& plan) {
  std::vector<std::size_t> out;
  for (const profile::Regime& r : plan.regimes) {
    if (!r.representatives.empty() &&
        std::find(out.begin(), out.end(), r.representatives.front()) == out.end()) {
      out.push_back(r.representatives.front());
    }
  }
  return out;
}

std::vector<RegimeDiagnosis> diagnose_regimes(const EvaluationTarget& target, const profile::RegimePlan& plan,
                                              const Sweep& baseline) {
  std::vector<RegimeDiagnosis> out;
  for (const profile::Regime& r : plan.regimes) {
    profile::RegimeEvidence e;
    e.regime = r.name;
    if (!r.representatives.empty()) {
      const std::string& uuid = target.workloads.at(r.representatives.front()).uuid;
      for (const SweepWorkload& w : baseline.workloads) {
        if (w.uuid != uuid) continue;
        e.latency_ms = w.latency_ms.value_or(0);
        e.speed_of_light = w.speed_of_light;
        e.sol_fraction = w.sol_fraction;
      }
    }
    out.push_back(RegimeDiagnosis{r.name, r.cost_share, profile::diagnose(e)});
  }
  return out;
}

nlohmann::ordered_json regimes_json(const profile::RegimePlan& plan,
                                    const std::vector<RegimeDiagnosis>& diagnoses) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < plan.regimes.size() && i < diagnoses.size(); ++i) {
    const profile::Regime& r = plan.regimes[i];
    nlohmann::ordered_json directions = nlohmann::ordered_json::array();
    for (const profile::Direction& d : diagnoses[i].diagnosis.directions) {
      directions.push_back({{"family", d.family}, {"title", d.title}, {"why", d.why}});
    }
    list.push_back({{"regime", r.name},
                    {"axes", r.axes_range},
                    {"cost_share", r.cost_share},
                    {"workloads", r.members.size()},
                    {"bottleneck", diagnoses[i].diagnosis.bottleneck},
                    {"reason", diagnoses[i].diagnosis.reason},
                    {"directions", std::move(directions)}});
  }
  return {{"cost_basis", plan.cost_basis}, {"regimes", std::move(list)}};
}

}  // namespace kh::control
