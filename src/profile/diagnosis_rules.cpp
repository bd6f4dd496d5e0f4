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

std::pair<std::string, std::string> label(const RegimeEvidence& e) {
  if (e.latency_ms > 0 && e.latency_ms < kLaunchBoundMs) {
    return {"launch", fmt::format("{:.1f} us a call: launch and fixed costs dominate", e.latency_ms * 1e3)};
  }
  if (const KernelMetrics* k = main_kernel(e)) {
    if (k->memory_throughput_pct >= 60 && k->memory_throughput_pct >= k->sm_throughput_pct) {
      return {"memory", fmt::format("memory throughput {:.0f}% of peak (SM {:.0f}%)",
                                    k->memory_throughput_pct, k->sm_throughput_pct)};
    }
    if (k->sm_throughput_pct >= 60) {
      return {"compute", fmt::format("SM throughput {:.0f}% of peak (memory {:.0f}%)", k->sm_throughput_pct,
                                     k->memory_throughput_pct)};
    }
    return {"latency", fmt::format("neither unit is busy (SM {:.0f}%, memory {:.0f}%): the kernel waits",
                                   k->sm_throughput_pct, k->memory_throughput_pct)};
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
          if (has_warning(e, "narrow_loads") && e.sol_fraction < 0.6) {
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
        const std::string& top = k->top_stalls.front().first;
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

}  // namespace kh::profile
