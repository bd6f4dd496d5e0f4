// Everything known about a candidate at one regime's representative workload: what the
// diagnosis rules read. Each part may be missing (no ncu, no GPU, no model), and the
// rules only use what is there.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eval/speed_of_light.h"
#include "profile/static_analysis.h"

namespace kh::profile {

// Typed metrics of one kernel launch, parsed from ncu (profile/ncu_metrics.h).
struct KernelMetrics {
  std::string kernel;
  std::string nvtx_stack;  // ncu's push/pop range column for the launch: the ranges it ran in
  double duration_us = 0;
  double sm_throughput_pct = 0;      // compute (SM) throughput, % of peak
  double memory_throughput_pct = 0;  // % of peak: the busiest of the memory units below (and others)
  // The memory units ncu's speed-of-light breakdown names, each % of its own peak; 0 when not measured.
  // Which one is busy says where the bytes come from: a kernel at 80% of L2 and 45% of DRAM is bound
  // by on-chip traffic, which more reuse on the SM cuts and fewer DRAM bytes do not.
  double dram_throughput_pct = 0;
  double l2_throughput_pct = 0;
  double l1_throughput_pct = 0;  // L1 and shared memory, % of peak over the SM's active cycles
  double dram_bytes = 0;
  int registers_per_thread = 0;
  long static_shared_bytes = 0;
  long dynamic_shared_bytes = 0;
  double theoretical_occupancy_pct = 0;
  double achieved_occupancy_pct = 0;
  double waves_per_sm = 0;
  double l2_hit_rate_pct = 0;
  std::vector<std::pair<std::string, double>> top_stalls;  // reason -> share (%) or cycles, largest first
};

struct RegimeEvidence {
  std::string regime;  // "small", ...
  double latency_ms = 0;
  std::optional<SpeedOfLight> speed_of_light;
  double sol_fraction = 0;             // floor / latency, 0 when unknown
  std::vector<KernelMetrics> kernels;  // empty without ncu
  std::vector<StaticWarning> static_warnings;
};

}  // namespace kh::profile
