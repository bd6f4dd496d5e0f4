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
  const std::string name = where.empty() ? std::string(key) : fmt::format("{}.{}", where, key);
  if (it == object.end()) throw Error(Location{source, 0, name}, "missing");
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(Location{source, 0, name}, "of the wrong type");
  }
}

// An optional member: `fallback` when absent, else of type T or an error naming the field.
template <class T>
T field_or(const nlohmann::ordered_json& object, const char* key, T fallback, const std::string& where,
           const std::string& source) {
  return object.contains(key) ? field<T>(object, key, where, source) : fallback;
}

KernelMetrics kernel_of(const nlohmann::ordered_json& k, const std::string& where,
                        const std::string& source) {
  KernelMetrics m;
  m.kernel = field<std::string>(k, "kernel", where, source);
  m.duration_us = field<double>(k, "duration_us", where, source);
  m.sm_throughput_pct = field<double>(k, "sm_throughput_pct", where, source);
  m.memory_throughput_pct = field<double>(k, "memory_throughput_pct", where, source);
  m.dram_throughput_pct = field_or(k, "dram_throughput_pct", 0.0, where, source);
  m.l2_throughput_pct = field_or(k, "l2_throughput_pct", 0.0, where, source);
  m.l1_throughput_pct = field_or(k, "l1_throughput_pct", 0.0, where, source);
  m.dram_bytes = field_or(k, "dram_bytes", 0.0, where, source);
  m.registers_per_thread = field_or(k, "registers_per_thread", 0, where, source);
  m.static_shared_bytes = field_or(k, "static_shared_bytes", 0L, where, source);
  m.dynamic_shared_bytes = field_or(k, "dynamic_shared_bytes", 0L, where, source);
  m.theoretical_occupancy_pct = field_or(k, "theoretical_occupancy_pct", 0.0, where, source);
  m.achieved_occupancy_pct = field_or(k, "achieved_occupancy_pct", 0.0, where, source);
  m.waves_per_sm = field_or(k, "waves_per_sm", 0.0, where, source);
  m.l2_hit_rate_pct = field_or(k, "l2_hit_rate_pct", 0.0, where, source);
  const auto stalls = field_or(k, "top_stalls", nlohmann::ordered_json::array(), where, source);
  if (!stalls.is_array()) throw Error(Location{source, 0, where + ".top_stalls"}, "not an array");
  for (std::size_t i = 0; i < stalls.size(); ++i) {
    const std::string at = fmt::format("{}.top_stalls[{}]", where, i);
    if (!stalls[i].is_object()) throw Error(Location{source, 0, at}, "not an object");
    m.top_stalls.emplace_back(field<std::string>(stalls[i], "reason", at, source),
                              field<double>(stalls[i], "value", at, source));
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
  const auto listed = field_or(profile, "static_warnings", nlohmann::ordered_json::array(), "", source);
  if (!listed.is_array()) throw Error(Location{source, 0, "static_warnings"}, "not an array");
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const std::string at = fmt::format("static_warnings[{}]", i);
    if (!listed[i].is_object()) throw Error(Location{source, 0, at}, "not an object");
    warnings.push_back({field_or<std::string>(listed[i], "kernel", "", at, source),
                        field<std::string>(listed[i], "kind", at, source),
                        field_or<std::string>(listed[i], "message", "", at, source)});
  }
  nlohmann::ordered_json out = profile;
  for (std::size_t i = 0; i < regimes->size(); ++i) {
    const nlohmann::ordered_json& r = (*regimes)[i];
    const std::string where = fmt::format("regimes[{}]", i);
    if (!r.is_object()) throw Error(Location{source, 0, where}, "not an object");
    const auto kernels = field_or(r, "kernels", nlohmann::ordered_json::array(), where, source);
    if (!kernels.is_array()) throw Error(Location{source, 0, where + ".kernels"}, "not an array");
    if (kernels.empty()) continue;
    RegimeEvidence e;
    e.regime = field_or<std::string>(r, "name", "", where, source);
    e.latency_ms = field<double>(r, "latency_ms", where, source);
    e.sol_fraction = field_or(r, "sol_fraction", 0.0, where, source);
    e.static_warnings = warnings;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const std::string at = fmt::format("{}.kernels[{}]", where, k);
      if (!kernels[k].is_object()) throw Error(Location{source, 0, at}, "not an object");
      e.kernels.push_back(kernel_of(kernels[k], at, source));
    }
    const Diagnosis d = diagnose(e);
    nlohmann::ordered_json& target = out["regimes"][i];
    target["bottleneck"] = d.bottleneck;
    target["bottleneck_reason"] = d.reason;
    target["directions"] = directions_json(d.directions);
  }
  out["rediagnosed"] = true;
  return out;
}

}  // namespace kh::profile
