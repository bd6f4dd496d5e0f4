// ProfileReport as Markdown (for people and agents) and JSON (for the controller).
#include <fmt/format.h>

#include "profile/profile_session.h"

namespace kh::profile {

namespace {

std::string latency_text(const RegimeProfile& r) {
  return r.result.latency ? fmt::format("{:.4f} ms", r.result.latency->latency_ms) : "-";
}

std::string sol_text(const RegimeProfile& r) {
  const double f = r.result.speed_of_light_fraction();
  if (f <= 0 || !r.result.speed_of_light) return "-";
  return fmt::format("{:.1f}% of a {:.4f} ms {} floor", 100 * f, r.result.speed_of_light->floor_s * 1e3,
                     r.result.speed_of_light->bound);
}

void metrics_lines(const RegimeProfile& r, std::string& md) {
  if (r.evidence.kernels.empty()) {
    md += fmt::format("- hardware metrics: none ({})\n", r.ncu_note);
    return;
  }
  for (const KernelMetrics& k : r.evidence.kernels) {
    const std::string units = memory_units_text(k);
    md += fmt::format(
        "- `{}`: {:.2f} us, SM {:.0f}%, memory {:.0f}%{}, DRAM {:.2f} MB, {} regs, smem {}+{} B, occupancy "
        "{:.0f}% "
        "of {:.0f}%, {:.2f} waves/SM, L2 hit {:.0f}%",
        k.kernel, k.duration_us, k.sm_throughput_pct, k.memory_throughput_pct,
        units.empty() ? "" : " (" + units + ")", k.dram_bytes / 1e6, k.registers_per_thread,
        k.static_shared_bytes, k.dynamic_shared_bytes, k.achieved_occupancy_pct, k.theoretical_occupancy_pct,
        k.waves_per_sm, k.l2_hit_rate_pct);
    if (!k.top_stalls.empty()) {
      md += "; stalls:";
      for (const auto& [reason, v] : k.top_stalls) md += fmt::format(" {} {:.2f}", reason, v);
    }
    md += "\n";
  }
}

nlohmann::ordered_json kernel_json(const KernelMetrics& k) {
  nlohmann::ordered_json stalls = nlohmann::ordered_json::array();
  for (const auto& [reason, v] : k.top_stalls) stalls.push_back({{"reason", reason}, {"value", v}});
  return {{"kernel", k.kernel},
          {"duration_us", k.duration_us},
          {"sm_throughput_pct", k.sm_throughput_pct},
          {"memory_throughput_pct", k.memory_throughput_pct},
          {"dram_throughput_pct", k.dram_throughput_pct},
          {"l2_throughput_pct", k.l2_throughput_pct},
          {"l1_throughput_pct", k.l1_throughput_pct},
          {"dram_bytes", k.dram_bytes},
          {"registers_per_thread", k.registers_per_thread},
          {"static_shared_bytes", k.static_shared_bytes},
          {"dynamic_shared_bytes", k.dynamic_shared_bytes},
          {"theoretical_occupancy_pct", k.theoretical_occupancy_pct},
          {"achieved_occupancy_pct", k.achieved_occupancy_pct},
          {"waves_per_sm", k.waves_per_sm},
          {"l2_hit_rate_pct", k.l2_hit_rate_pct},
          {"top_stalls", stalls}};
}

}  // namespace

double ProfileReport::ncu_seconds() const {
  double total = 0;
  for (const NcuSessionRecord& s : ncu_runs) total += s.seconds;
  return total;
}

std::string ProfileReport::markdown() const {
  std::string md = fmt::format("# Profile: {} on {}\n\n", solution, definition);
  md += fmt::format(
      "Device: {}. {:.1f} s: {:.1f} s evaluating the representatives, {:.1f} s in {} ncu session(s).\n\n",
      device.value("name", std::string("?")), seconds, evaluation_seconds, ncu_seconds(), ncu_runs.size());
  md += "## Regimes\n\n";
  for (const std::string& line : plan.explain()) md += "    " + line + "\n";
  md += "\n## Static analysis\n\n";
  if (!static_analysed) {
    md += "Not run (CPU backend, or the candidate did not build).\n";
  } else {
    for (const KernelResources& k : static_report.resources) {
      md += fmt::format("- `{}`: {} registers, {} B shared, {} B stack, spills {}/{} B\n", demangle(k.name),
                        k.registers, k.shared_bytes, k.stack_bytes, k.spill_store_bytes, k.spill_load_bytes);
    }
    for (const StaticWarning& w : static_report.warnings)
      md += fmt::format("- **{}**: {}\n", w.kind, w.message);
    if (!static_report.note.empty()) md += fmt::format("- note: {}\n", static_report.note);
  }
  for (const RegimeProfile& r : regimes) {
    md += fmt::format("\n## Regime {}: {}\n\n", r.regime.name, r.regime.axes_range);
    md += fmt::format("- representative: {} ({}), status {}\n", r.result.workload.uuid.substr(0, 8),
                      r.regime.axes_range, status_name(r.result.status));
    md += fmt::format("- latency: {}; speed of light: {}\n", latency_text(r), sol_text(r));
    md += fmt::format("- bottleneck: **{}**: {}\n", r.diagnosis.bottleneck, r.diagnosis.reason);
    metrics_lines(r, md);
    md += "- directions:\n";
    for (const Direction& d : r.diagnosis.directions) {
      md += fmt::format("  1. {} ({}): {}\n", d.title, d.family, d.why);
    }
    if (r.diagnosis.directions.empty()) md += "  none from the rule table\n";
  }
  return md;
}

nlohmann::ordered_json ProfileReport::json() const {
  nlohmann::ordered_json regimes_json = nlohmann::ordered_json::array();
  for (const RegimeProfile& r : regimes) {
    nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
    for (const KernelMetrics& k : r.evidence.kernels) kernels.push_back(kernel_json(k));
    // Every member by uuid, so a full sweep's traces can be grouped by the same regimes.
    nlohmann::ordered_json members = nlohmann::ordered_json::array();
    for (std::size_t i : r.regime.members) {
      if (i < workload_uuids.size()) members.push_back(workload_uuids[i]);
    }
    regimes_json.push_back({{"name", r.regime.name},
                            {"axes", r.regime.axes_range},
                            {"workloads", r.regime.members.size()},
                            {"members", members},
                            {"cost_share", r.regime.cost_share},
                            {"reason", r.regime.reason},
                            {"representative", r.result.workload.uuid},
                            {"status", std::string(status_name(r.result.status))},
                            {"latency_ms", r.evidence.latency_ms},
                            {"sol_fraction", r.evidence.sol_fraction},
                            {"bottleneck", r.diagnosis.bottleneck},
                            {"bottleneck_reason", r.diagnosis.reason},
                            {"kernels", kernels},
                            {"ncu_note", r.ncu_note},
                            {"directions", directions_json(r.diagnosis.directions)}});
  }
  nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
  for (const StaticWarning& w : static_report.warnings) {
    warnings.push_back({{"kernel", w.kernel}, {"kind", w.kind}, {"message", w.message}});
  }
  return {{"definition", definition},
          {"solution", solution},
          {"device", device},
          {"cost_basis", plan.cost_basis},
          {"static_warnings", warnings},
          {"static_note", static_report.note},
          {"regimes", regimes_json},
          {"seconds", seconds},
          {"seconds_breakdown",
           {{"evaluation", evaluation_seconds}, {"ncu", ncu_seconds()}, {"ncu_sessions", ncu_runs.size()}}}};
}

}  // namespace kh::profile
