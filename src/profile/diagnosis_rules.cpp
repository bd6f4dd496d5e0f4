#include "profile/diagnosis_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace kh::profile {

namespace {

bool has_warning(const RegimeEvidence& e, const std::string& kind) {
  return std::any_of(e.static_warnings.begin(), e.static_warnings.end(),
                     [&](const StaticWarning& w) { return w.kind == kind; });
}

// The launch that dominates the regime's time (ncu reports each kernel of a call).
const KernelMetrics* main_kernel(const RegimeEvidence& e) {
  const KernelMetrics* best = nullptr;
  for (const KernelMetrics& k : e.kernels) {
    if (best == nullptr || k.duration_us > best->duration_us) best = &k;
  }
  return best;
}

// A stall reason as ncu_metrics.h names it ("wait"), also from a full metric name
// ("smsp__pcsamp_warps_issue_stalled_wait").
std::string plain_stall(const std::string& reason) {
  const std::size_t at = reason.find("stalled_");
  return at == std::string::npos ? reason : reason.substr(at + 8);
}

// What a warp stall reason means for the code.
std::string stall_meaning(const std::string& reason) {
  static const std::vector<std::pair<std::string, std::string>> meanings{
      {"long_scoreboard", "global or local memory results"},
      {"short_scoreboard", "shared-memory or special-function results"},
      {"wait", "fixed-latency dependencies: a serial chain of instructions"},
      {"not_selected", "issue slots its scheduler gives other warps: the busy SMs are issue-bound"},
      {"selected", "its own issue: the busy SMs are issue-bound"},
      {"math_pipe_throttle", "a busy math pipe"},
      {"mio_throttle", "the shared-memory and special-function queue"},
      {"lg_throttle", "the global-memory queue: many small accesses"},
      {"barrier", "block barriers"},
      {"membar", "memory fences"},
      {"imc_miss", "constant-cache misses"},
      {"no_instruction", "instruction fetch"},
      {"branch_resolving", "branch targets"},
      {"dispatch_stall", "dispatch"},
      {"drain", "stores draining at exit"},
      {"sleeping", "sleep or yield"},
      {"tex_throttle", "the texture queue"},
  };
  for (const auto& [name, meaning] : meanings) {
    if (reason == name) return meaning;
  }
  return "";
}

// A kernel's name without namespaces, template arguments or parameters, as ncu prints it.
std::string short_name(const std::string& kernel) {
  std::size_t params = 0;  // the parameter list: the first '(' outside template arguments
  for (int depth = 0; params < kernel.size(); ++params) {
    const char c = kernel[params];
    depth += c == '<' ? 1 : (c == '>' ? -1 : 0);
    if (c == '(' && depth == 0) break;
  }
  std::string name = kernel.substr(0, params);
  if (!name.empty() && name.back() == '>') {  // the template arguments, which may hold '::' and '<'
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      depth += name[i] == '>' ? 1 : (name[i] == '<' ? -1 : 0);
      if (depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  if (const std::size_t colons = name.rfind("::"); colons != std::string::npos)
    name = name.substr(colons + 2);
  if (const std::size_t space = name.rfind(' '); space != std::string::npos) name = name.substr(space + 1);
  return name.empty() ? kernel : name;
}

// Whether the launch that holds the regime's time carries a static warning of `kind` (a warning
// about the whole binary counts; without launches, any warning does): the scalar loads of a
// small scale gather beside a TMA GEMM must not send the agent to vectorise the GEMM. Names
// compare without namespaces and template arguments, which ncu and the demangler write apart.
bool main_kernel_has_warning(const RegimeEvidence& e, const std::string& kind) {
  const KernelMetrics* k = main_kernel(e);
  if (k == nullptr) return has_warning(e, kind);
  const std::string name = short_name(k->kernel);
  return std::any_of(e.static_warnings.begin(), e.static_warnings.end(), [&](const StaticWarning& w) {
    return w.kind == kind && (w.kernel.empty() || short_name(w.kernel) == name);
  });
}

// The memory units ncu measured for k, busiest first ("L2 80%, L1 57%, DRAM 45%"); empty when none was.
std::vector<std::pair<std::string, double>> memory_units(const KernelMetrics& k) {
  std::vector<std::pair<std::string, double>> units;
  for (const auto& [name, pct] : {std::pair<std::string, double>{"L2", k.l2_throughput_pct},
                                  {"L1", k.l1_throughput_pct},
                                  {"DRAM", k.dram_throughput_pct}}) {
    if (pct > 0) units.emplace_back(name, pct);
  }
  std::stable_sort(units.begin(), units.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return units;
}

double kernels_us(const RegimeEvidence& e) {
  double total = 0;
  for (const KernelMetrics& k : e.kernels) total += k.duration_us;
  return total;
}

// The call's kernels account for less than this share of its latency: the rest is launch gaps
// between them and host work (ncu's serialised durations against the harness's latency).
constexpr double kBusyShare = 0.6;
// DRAM at most this share of the busiest on-chip memory unit's throughput: the on-chip unit bounds.
constexpr double kOnChipShare = 0.75;

// Why a latency-bound regime waits: its longest kernel, that kernel's share of the call and of
// the GPU, and what its warps stall on; then whether the kernels fill the call at all.
std::string waiting_reason(const RegimeEvidence& e, const KernelMetrics& k) {
  std::string why = fmt::format("neither unit is busy (SM {:.0f}%, memory {:.0f}%): {}", k.sm_throughput_pct,
                                k.memory_throughput_pct, short_name(k.kernel));
  const double call_us = e.latency_ms * 1e3;
  if (call_us > 0 && e.kernels.size() > 1)
    why += fmt::format(" ({:.1f} of the call's {:.1f} us", k.duration_us, call_us);
  else
    why += fmt::format(" ({:.1f} us", k.duration_us);
  if (k.waves_per_sm > 0) why += fmt::format(", {:.2f} waves per SM", k.waves_per_sm);
  why += ")";
  if (!k.top_stalls.empty()) {
    const std::string top = plain_stall(k.top_stalls.front().first);
    const std::string meaning = stall_meaning(top);
    why += meaning.empty() ? fmt::format("; its warps stall mostly on {}", top)
                           : fmt::format("; its warps stall mostly on {} ({})", top, meaning);
  } else {
    why += " waits";
  }
  const double busy = kernels_us(e);
  if (call_us > 0 && busy < kBusyShare * call_us)
    why += fmt::format("; its {} kernel(s) run {:.1f} of {:.1f} us, the rest is launch gaps and host work",
                       e.kernels.size(), busy, call_us);
  return why;
}

std::pair<std::string, std::string> label(const RegimeEvidence& e) {
  if (e.latency_ms > 0 && e.latency_ms < kLaunchBoundMs) {
    return {"launch", fmt::format("{:.1f} us a call: launch and fixed costs dominate", e.latency_ms * 1e3)};
  }
  if (const KernelMetrics* k = main_kernel(e)) {
    if (k->memory_throughput_pct >= 60 && k->memory_throughput_pct >= k->sm_throughput_pct) {
      const std::string units = memory_units_text(*k);
      return {"memory",
              fmt::format("memory throughput {:.0f}% of peak (SM {:.0f}%){}", k->memory_throughput_pct,
                          k->sm_throughput_pct, units.empty() ? "" : "; by unit: " + units)};
    }
    if (k->sm_throughput_pct >= 60) {
      return {"compute", fmt::format("SM throughput {:.0f}% of peak (memory {:.0f}%)", k->sm_throughput_pct,
                                     k->memory_throughput_pct)};
    }
    return {"latency", waiting_reason(e, *k)};
  }
  if (e.speed_of_light && e.sol_fraction > 0) {
    if (e.sol_fraction >= 0.4) {
      return {e.speed_of_light->bound,
              fmt::format("{:.0f}% of the {} floor (intensity {:.1f} flop/byte, ridge {:.1f})",
                          100 * e.sol_fraction, e.speed_of_light->bound, e.speed_of_light->intensity,
                          e.speed_of_light->ridge)};
    }
    return {"latency", fmt::format("only {:.0f}% of the {} floor, with no profile to say where time goes",
                                   100 * e.sol_fraction, e.speed_of_light->bound)};
  }
  return {"latency", "no profile and no speed-of-light model: unknown, treated as latency"};
}

using Rule = std::function<void(const RegimeEvidence&, const std::string&, std::vector<Direction>&)>;

// Each rule appends a direction when its evidence is present (docs/diagnosis.md).
const std::vector<Rule>& rules() {
  static const std::vector<Rule> table{
      // R1 narrow loads in a memory-bound kernel below 60% of bandwidth.
      [](const RegimeEvidence& e, const std::string& b, std::vector<Direction>& out) {
        if (b == "memory" || b == "latency") {
          if (main_kernel_has_warning(e, "narrow_loads") && e.sol_fraction < 0.6) {
            out.push_back({"memory_access", "vectorise and coalesce: 16-byte loads, contiguous per warp",
                           fmt::format("memory-bound at {:.0f}% of the floor with no 128-bit loads",
                                       100 * e.sol_fraction),
                           90});
          }
        }
      },
      // R2 fewer than one wave: the grid does not fill the GPU.
      [](const RegimeEvidence& e, const std::string&, std::vector<Direction>& out) {
        const KernelMetrics* k = main_kernel(e);
        if (k != nullptr && k->waves_per_sm > 0 && k->waves_per_sm < 1) {
          out.push_back({"parallelism",
                         "split the work (split-K / split along the long axis) or use a persistent grid",
                         fmt::format("{:.2f} waves per SM: part of the GPU idles", k->waves_per_sm), 85});
        }
      },
      // R3 spills.
      [](const RegimeEvidence& e, const std::string&, std::vector<Direction>& out) {
        if (has_warning(e, "spills")) {
          out.push_back({"register_pressure",
                         "cut registers: smaller tiles, fewer accumulators, or change the tile",
                         "ptxas reports spills to local memory", 80});
        }
      },
      // R4 matmul-class math off the tensor cores.
      [](const RegimeEvidence& e, const std::string& b, std::vector<Direction>& out) {
        if (has_warning(e, "no_tensor_cores") && b != "launch") {
          out.push_back({"tensor_cores",
                         "move the matrix math to tensor cores (mma.sync, then wgmma on Hopper)",
                         "a tensor-core operator with no MMA instruction in its SASS", 95});
        }
        if (has_warning(e, "fp8_without_qgmma") && b == "compute") {
          out.push_back({"tensor_cores", "use fp8 MMA (QGMMA) directly on the e4m3 operands",
                         "fp8 operands go through 16-bit MMAs", 70});
        }
      },
      // R5 low achieved occupancy in a latency-bound kernel.
      [](const RegimeEvidence& e, const std::string& b, std::vector<Direction>& out) {
        const KernelMetrics* k = main_kernel(e);
        if (b == "latency" && k != nullptr && k->achieved_occupancy_pct > 0 &&
            k->achieved_occupancy_pct < 25) {
          out.push_back({"occupancy",
                         "raise occupancy: fewer registers or shared memory per block, more blocks",
                         fmt::format("achieved occupancy {:.0f}% (theoretical {:.0f}%)",
                                     k->achieved_occupancy_pct, k->theoretical_occupancy_pct),
                         75});
        }
      },
      // R6 the dominant stall names the fix.
      [](const RegimeEvidence& e, const std::string&, std::vector<Direction>& out) {
        const KernelMetrics* k = main_kernel(e);
        if (k == nullptr || k->top_stalls.empty()) return;
        const std::string top = plain_stall(k->top_stalls.front().first);
        if (top.find("long_scoreboard") != std::string::npos) {
          out.push_back({"latency_hiding",
                         "keep more bytes in flight: prefetch, cp.async/TMA pipelines, more ILP",
                         "warps stall most on global-memory results (long scoreboard)", 65});
        } else if (top.find("barrier") != std::string::npos) {
          out.push_back({"synchronization",
                         "fewer block barriers: warp-level reductions, larger work per sync",
                         "warps stall most at barriers", 60});
        } else if (top.find("math_pipe") != std::string::npos ||
                   top.find("mio_throttle") != std::string::npos) {
          out.push_back({"instruction_mix",
                         "cut instructions per result: vector math, fewer conversions, unroll",
                         fmt::format("warps stall most on {}", top), 55});
        } else if (top == "wait") {
          out.push_back({"latency_hiding",
                         "break serial chains: independent accumulators, interleaved iterations, more ILP",
                         "warps stall most on fixed-latency dependencies (wait)", 62});
        } else if (top == "not_selected" || top == "selected") {
          out.push_back({"instruction_mix", "fewer instructions per result, or the same spread over more SMs",
                         fmt::format("warps stall most on {}: the SMs in use are issue-bound", top), 58});
        } else if (top == "short_scoreboard") {
          out.push_back({"latency_hiding",
                         "fewer dependent shared-memory round trips: keep values in registers, batch loads",
                         "warps stall most on shared-memory results (short scoreboard)", 57});
        } else if (top == "lg_throttle") {
          out.push_back({"memory_access", "fewer, wider global accesses (16-byte, vectorised)",
                         "warps stall most on a full global-memory queue (lg_throttle)", 63});
        }
      },
      // R11 the call's kernels fill little of it: launch gaps and host work between them.
      [](const RegimeEvidence& e, const std::string& b, std::vector<Direction>& out) {
        const double call_us = e.latency_ms * 1e3;
        const double busy = kernels_us(e);
        if (b != "launch" && !e.kernels.empty() && call_us > 0 && busy < kBusyShare * call_us) {
          out.push_back({"launch_overhead",
                         "fewer kernels a call: fuse them, or launch the next as a programmatic dependent",
                         fmt::format("the call's {} kernel(s) run {:.1f} of its {:.1f} us", e.kernels.size(),
                                     busy, call_us),
                         70});
        }
      },
      // R7 launch-bound.
      [](const RegimeEvidence&, const std::string& b, std::vector<Direction>& out) {
        if (b == "launch") {
          out.push_back({"launch_overhead", "one kernel per call, no host work or allocation, fewer launches",
                         "a call this short is dominated by launch and fixed costs", 88});
        }
      },
      // R8 near the floor: only less work helps.
      [](const RegimeEvidence& e, const std::string&, std::vector<Direction>& out) {
        if (e.sol_fraction >= 0.8) {
          out.push_back({"algorithmic",
                         "near the speed of light: move fewer bytes or do fewer FLOPs (fuse, reuse)",
                         fmt::format("{:.0f}% of the floor already", 100 * e.sol_fraction), 50});
        }
      },
      // R9 memory-bound with a poor L2 hit rate: tile for reuse.
      [](const RegimeEvidence& e, const std::string& b, std::vector<Direction>& out) {
        const KernelMetrics* k = main_kernel(e);
        if (b == "memory" && k != nullptr && k->l2_hit_rate_pct > 0 && k->l2_hit_rate_pct < 30 &&
            e.sol_fraction < 0.6) {
          out.push_back({"data_reuse", "tile for reuse in shared memory or L2 (swizzled block order)",
                         fmt::format("L2 hit rate {:.0f}% while memory-bound", k->l2_hit_rate_pct), 60});
        }
      },
      // R12 memory-bound on on-chip traffic: the busiest memory unit is L2 or L1/shared memory and
      // DRAM runs well below it, so fewer DRAM bytes would not help and reuse on the SM would.
      [](const RegimeEvidence& e, const std::string& b, std::vector<Direction>& out) {
        const KernelMetrics* k = main_kernel(e);
        if (b != "memory" || k == nullptr || k->dram_throughput_pct <= 0) return;
        const auto units = memory_units(*k);
        const auto& [unit, pct] = units.front();
        if (unit == "DRAM" || k->dram_throughput_pct > kOnChipShare * pct) return;
        const bool l2 = unit == "L2";
        out.push_back(
            {"data_reuse",
             l2 ? "reuse each byte the SMs take from L2: larger tiles, TMA multicast across a cluster"
                : "fewer shared-memory and L1 accesses: operands read once a tile, kept in registers, "
                  "no bank conflicts",
             fmt::format("{} at {:.0f}% of its peak, DRAM at {:.0f}%: the bytes move on chip",
                         l2 ? "L2" : "L1/shared memory", pct, k->dram_throughput_pct),
             66});
      },
      // R10 far from the floor with nothing more specific: restructure.
      [](const RegimeEvidence& e, const std::string& b, std::vector<Direction>& out) {
        if (b != "launch" && e.sol_fraction > 0 && e.sol_fraction < 0.2) {
          out.push_back({"restructure", "restructure the kernel: one block per output tile, fused stages",
                         fmt::format("only {:.0f}% of the floor", 100 * e.sol_fraction), 40});
        }
      },
  };
  return table;
}

}  // namespace

Diagnosis diagnose(const RegimeEvidence& evidence) {
  Diagnosis d;
  auto [bottleneck, reason] = label(evidence);
  d.bottleneck = std::move(bottleneck);
  d.reason = std::move(reason);
  std::vector<Direction> all;
  for (const Rule& rule : rules()) rule(evidence, d.bottleneck, all);
  std::stable_sort(all.begin(), all.end(),
                   [](const Direction& a, const Direction& b) { return a.score > b.score; });
  // One direction per family: two ways of saying "vectorise" are one idea.
  for (const Direction& dir : all) {
    const bool seen = std::any_of(d.directions.begin(), d.directions.end(),
                                  [&](const Direction& x) { return x.family == dir.family; });
    if (!seen && d.directions.size() < 3) d.directions.push_back(dir);
  }
  return d;
}

std::string memory_units_text(const KernelMetrics& k) {
  std::string text;
  for (const auto& [name, pct] : memory_units(k))
    text += fmt::format("{}{} {:.0f}%", text.empty() ? "" : ", ", name, pct);
  return text;
}

nlohmann::ordered_json directions_json(const std::vector<Direction>& directions) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Direction& d : directions)
    out.push_back({{"family", d.family}, {"title", d.title}, {"why", d.why}});
  return out;
}

}  // namespace kh::profile
