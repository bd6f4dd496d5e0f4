#include "profile/profile_rediagnosis.h"

#include <fmt/format.h>

#include "error/error.h"
#include "profile/diagnosis_rules.h"

namespace kh::profile {

namespace {

template <class T>
T field(const nlohmann::ordered_json& object, const char* key, const std::string& where,
        const std::string& source) {
  const auto it = object.find(key);
  if (it == object.end()) throw Error(Location{source, 0, fmt::format("{}.{}", where, key)}, "missing");
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(Location{source, 0, fmt::format("{}.{}", where, key)}, "of the wrong type");
  }
}

KernelMetrics kernel_of(const nlohmann::ordered_json& k, const std::string& where,
                        const std::string& source) {
  KernelMetrics m;
  m.kernel = field<std::string>(k, "kernel", where, source);
  m.duration_us = field<double>(k, "duration_us", where, source);
  m.sm_throughput_pct = field<double>(k, "sm_throughput_pct", where, source);
  m.memory_throughput_pct = field<double>(k, "memory_throughput_pct", where, source);
  m.dram_bytes = k.value("dram_bytes", 0.0);
  m.registers_per_thread = k.value("registers_per_thread", 0);
  m.static_shared_bytes = k.value("static_shared_bytes", 0L);
  m.dynamic_shared_bytes = k.value("dynamic_shared_bytes", 0L);
  m.theoretical_occupancy_pct = k.value("theoretical_occupancy_pct", 0.0);
  m.achieved_occupancy_pct = k.value("achieved_occupancy_pct", 0.0);
  m.waves_per_sm = k.value("waves_per_sm", 0.0);
  m.l2_hit_rate_pct = k.value("l2_hit_rate_pct", 0.0);
  if (const auto stalls = k.find("top_stalls"); stalls != k.end() && stalls->is_array()) {
    for (const auto& s : *stalls) {
      m.top_stalls.emplace_back(field<std::string>(s, "reason", where + ".top_stalls[]", source),
                                field<double>(s, "value", where + ".top_stalls[]", source));
    }
  }
  return m;
}

}  // namespace

nlohmann::ordered_json rediagnose(const nlohmann::ordered_json& profile, const std::string& source) {
  if (!profile.is_object()) throw Error(Location{source, 0, ""}, "not a profile report (a JSON object)");
  const auto regimes = profile.find("regimes");
  if (regimes == profile.end() || !regimes->is_array())
    throw Error(Location{source, 0, "regimes"}, "missing or not an array: not a profile report");
  std::vector<StaticWarning> warnings;
  if (const auto w = profile.find("static_warnings"); w != profile.end() && w->is_array()) {
    for (const auto& x : *w)
      warnings.push_back({x.value("kernel", ""), x.value("kind", ""), x.value("message", "")});
  }
  nlohmann::ordered_json out = profile;
  for (std::size_t i = 0; i < regimes->size(); ++i) {
    const nlohmann::ordered_json& r = (*regimes)[i];
    const std::string where = fmt::format("regimes[{}]", i);
    const auto kernels = r.find("kernels");
    if (kernels == r.end() || !kernels->is_array() || kernels->empty()) continue;
    RegimeEvidence e;
    e.regime = r.value("name", "");
    e.latency_ms = field<double>(r, "latency_ms", where, source);
    e.sol_fraction = r.value("sol_fraction", 0.0);
    e.static_warnings = warnings;
    for (std::size_t k = 0; k < kernels->size(); ++k)
      e.kernels.push_back(kernel_of((*kernels)[k], fmt::format("{}.kernels[{}]", where, k), source));
    const Diagnosis d = diagnose(e);
    nlohmann::ordered_json dirs = nlohmann::ordered_json::array();
    for (const Direction& dir : d.directions)
      dirs.push_back({{"family", dir.family}, {"title", dir.title}, {"why", dir.why}});
    nlohmann::ordered_json& target = out["regimes"][i];
    target["bottleneck"] = d.bottleneck;
    target["bottleneck_reason"] = d.reason;
    target["directions"] = dirs;
  }
  out["rediagnosed"] = true;
  return out;
}

}  // namespace kh::profile
