// The rule table, driven with synthetic evidence: each label and each row of
// docs/diagnosis.md on the case it is for.
#include "profile/diagnosis_rules.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kh::profile {
namespace {

bool suggests(const Diagnosis& d, const std::string& family) {
  return std::any_of(d.directions.begin(), d.directions.end(),
                     [&](const Direction& x) { return x.family == family; });
}

KernelMetrics kernel(double sm, double mem) {
  KernelMetrics k;
  k.kernel = "k";
  k.duration_us = 100;
  k.sm_throughput_pct = sm;
  k.memory_throughput_pct = mem;
  k.waves_per_sm = 4;
  k.achieved_occupancy_pct = 60;
  k.theoretical_occupancy_pct = 75;
  return k;
}

RegimeEvidence evidence(double latency_ms, double fraction, const std::string& bound) {
  RegimeEvidence e;
  e.regime = "large";
  e.latency_ms = latency_ms;
  SpeedOfLight s;
  s.bound = bound;
  s.floor_s = latency_ms * fraction * 1e-3;
  e.speed_of_light = s;
  e.sol_fraction = fraction;
  return e;
}

TEST(DiagnosisRules, MemoryBoundNarrowLoadsPointsToVectorising) {
  RegimeEvidence e = evidence(0.2, 0.3, "memory");
  e.kernels = {kernel(20, 65)};
  e.static_warnings = {{"k", "narrow_loads", "32-bit loads"}};
  const Diagnosis d = diagnose(e);
  EXPECT_EQ(d.bottleneck, "memory");
  ASSERT_FALSE(d.directions.empty());
  EXPECT_EQ(d.directions.front().family, "memory_access");
  EXPECT_LE(d.directions.size(), 3u);
}

// MoE's large calls (H100, 2026-12-06): a TMA GEMM holds the time; the only narrow loads are a
// 13 us scale gather's. The names differ as ncu and the demangler write them.
TEST(DiagnosisRules, NarrowLoadsOutsideTheKernelThatHoldsTheTimeDoNotPointToVectorising) {
  RegimeEvidence e = evidence(3.2, 0.43, "compute");
  KernelMetrics gemm = kernel(53, 81);
  gemm.kernel = "void ws::fp8_gemm_ws_tma_scales<(bool)1>(CUtensorMap_st, CUtensorMap_st, ws::Args)";
  gemm.duration_us = 1580;
  KernelMetrics gather = kernel(16, 71);
  gather.kernel = "ws::gather_scales(const float *, const int *, int, long, float *)";
  gather.duration_us = 13;
  e.kernels = {gather, gemm};
  e.static_warnings = {{"moe_fp8_grouped::ws::gather_scales(float const*, int const*, int, long, float*)",
                        "narrow_loads", "3"}};
  EXPECT_FALSE(suggests(diagnose(e), "memory_access"));
  e.static_warnings.push_back(
      {"void moe_fp8_grouped::ws::fp8_gemm_ws_tma_scales<true>(CUtensorMap_st, CUtensorMap_st, "
       "moe_fp8_grouped::ws::Args)",
       "narrow_loads", "8"});
  EXPECT_TRUE(suggests(diagnose(e), "memory_access"));
  e.static_warnings = {{"", "narrow_loads", "about the whole binary"}};
  EXPECT_TRUE(suggests(diagnose(e), "memory_access"));
}

TEST(DiagnosisRules, UnderOneWavePointsToSplitting) {
  RegimeEvidence e = evidence(0.05, 0.1, "memory");
  KernelMetrics k = kernel(10, 15);
  k.waves_per_sm = 0.3;
  e.kernels = {k};
  const Diagnosis d = diagnose(e);
  EXPECT_EQ(d.bottleneck, "latency");
  EXPECT_EQ(d.directions.front().family, "parallelism");
}

TEST(DiagnosisRules, SpillsPointToRegisters) {
  RegimeEvidence e = evidence(1.0, 0.5, "compute");
  e.kernels = {kernel(70, 20)};
  e.static_warnings = {{"k", "spills", "spills 512 bytes"}};
  const Diagnosis d = diagnose(e);
  EXPECT_EQ(d.bottleneck, "compute");
  EXPECT_TRUE(suggests(d, "register_pressure"));
}

TEST(DiagnosisRules, MatmulWithoutTensorCoresComesFirst) {
  RegimeEvidence e = evidence(2.0, 0.05, "compute");
  e.kernels = {kernel(85, 30)};
  e.static_warnings = {{"", "no_tensor_cores", "none"}, {"k", "spills", "some"}};
  const Diagnosis d = diagnose(e);
  EXPECT_EQ(d.directions.front().family, "tensor_cores");
  EXPECT_TRUE(suggests(d, "register_pressure"));
}

TEST(DiagnosisRules, ShortCallsAreLaunchBound) {
  const Diagnosis d = diagnose(evidence(0.003, 0.05, "memory"));
  EXPECT_EQ(d.bottleneck, "launch");
  EXPECT_EQ(d.directions.front().family, "launch_overhead");
}

TEST(DiagnosisRules, StallsAndOccupancy) {
  RegimeEvidence e = evidence(0.5, 0.15, "memory");
  KernelMetrics k = kernel(15, 30);
  k.achieved_occupancy_pct = 12;
  k.top_stalls = {{"smsp__pcsamp_warps_issue_stalled_long_scoreboard", 61.0}, {"barrier", 10.0}};
  e.kernels = {k};
  const Diagnosis d = diagnose(e);
  EXPECT_EQ(d.bottleneck, "latency");
  EXPECT_TRUE(suggests(d, "occupancy"));
  EXPECT_TRUE(suggests(d, "latency_hiding"));
}

TEST(DiagnosisRules, WithoutAProfileTheModelDecides) {
  EXPECT_EQ(diagnose(evidence(1.0, 0.7, "memory")).bottleneck, "memory");
  EXPECT_EQ(diagnose(evidence(1.0, 0.7, "compute")).bottleneck, "compute");
  EXPECT_EQ(diagnose(evidence(1.0, 0.1, "compute")).bottleneck, "latency");
  RegimeEvidence bare;
  bare.latency_ms = 1;
  EXPECT_EQ(diagnose(bare).bottleneck, "latency");
}

// The indexer's small regime on the H200 (bench/results/h200-loop/2026-12-04b/call2): two
// kernels, the selection the longer, one block per request, its warps waiting on issue slots.
TEST(DiagnosisRules, AWaitingRegimeNamesItsKernelItsShareAndWhatItWaitsOn) {
  RegimeEvidence e = evidence(0.0139, 0.064, "memory");
  KernelMetrics score = kernel(10, 9);
  score.kernel = "<unnamed>::mma_score_kernel(const unsigned char *, int, float *)";
  score.duration_us = 6.18;
  score.waves_per_sm = 0.57;
  score.top_stalls = {{"long_scoreboard", 3.15}};
  KernelMetrics select = kernel(1, 1);
  select.kernel = "void dsa::select_kernel<ns::Cfg<(int)16, true>>(const float *, int *)";
  select.duration_us = 8.54;
  select.waves_per_sm = 0.02;
  select.top_stalls = {{"not_selected", 2.5}, {"wait", 2.4}};
  e.kernels = {score, select};
  const Diagnosis d = diagnose(e);
  EXPECT_EQ(d.bottleneck, "latency");
  EXPECT_NE(d.reason.find("select_kernel (8.5 of the call's 13.9 us, 0.02 waves per SM)"), std::string::npos)
      << d.reason;
  EXPECT_NE(d.reason.find("not_selected (issue slots"), std::string::npos) << d.reason;
  EXPECT_EQ(d.reason.find("launch gaps"), std::string::npos) << "the kernels fill the call: " << d.reason;
  EXPECT_TRUE(suggests(d, "parallelism"));
  EXPECT_TRUE(suggests(d, "instruction_mix"));
  e.kernels = {score};  // ncu's "<unnamed>" namespace is not a template argument list
  EXPECT_NE(diagnose(e).reason.find(": mma_score_kernel (6.2 us"), std::string::npos) << diagnose(e).reason;
}

TEST(DiagnosisRules, ASerialChainPointsToInstructionLevelParallelism) {
  RegimeEvidence e = evidence(0.05, 0.5, "memory");
  KernelMetrics k = kernel(30, 40);
  k.top_stalls = {{"smsp__pcsamp_warps_issue_stalled_wait", 40.0}};
  e.kernels = {k};
  const Diagnosis d = diagnose(e);
  EXPECT_NE(d.reason.find("wait (fixed-latency dependencies"), std::string::npos) << d.reason;
  ASSERT_TRUE(suggests(d, "latency_hiding"));
  const auto it = std::find_if(d.directions.begin(), d.directions.end(),
                               [](const Direction& x) { return x.family == "latency_hiding"; });
  EXPECT_NE(it->title.find("serial chains"), std::string::npos) << it->title;
}

TEST(DiagnosisRules, KernelsThatFillLittleOfTheCallPointToFewerLaunches) {
  RegimeEvidence e = evidence(0.030, 0.1, "memory");  // a 30 us call
  KernelMetrics a = kernel(20, 20);
  a.duration_us = 6;
  KernelMetrics b = kernel(10, 10);
  b.duration_us = 5;
  e.kernels = {a, b};
  const Diagnosis d = diagnose(e);
  EXPECT_EQ(d.bottleneck, "latency");
  EXPECT_NE(d.reason.find("run 11.0 of 30.0 us, the rest is launch gaps"), std::string::npos) << d.reason;
  EXPECT_TRUE(suggests(d, "launch_overhead"));
  e.latency_ms = 0.012;  // the same kernels in a 12 us call: they fill it
  EXPECT_FALSE(suggests(diagnose(e), "launch_overhead"));
}

TEST(DiagnosisRules, NearTheFloorSaysDoLessWork) {
  RegimeEvidence e = evidence(0.1, 0.9, "memory");
  e.kernels = {kernel(20, 88)};
  const Diagnosis d = diagnose(e);
  EXPECT_EQ(d.bottleneck, "memory");
  EXPECT_TRUE(suggests(d, "algorithmic"));
  EXPECT_FALSE(suggests(d, "memory_access"));
}

// Shaped like MoE's GEMM1 at 14107 tokens (H100, bench/results/h100-loop/2026-12-07): memory 81%, SM
// 53%, DRAM at most half its peak (1.6 GB in 1.8 ms), so the 81% unit is on chip. That profile did
// not have the units yet; the split below is of that kind, not a measurement.
KernelMetrics by_unit(double l2, double l1, double dram) {
  KernelMetrics k = kernel(53, 81);
  k.l2_throughput_pct = l2;
  k.l1_throughput_pct = l1;
  k.dram_throughput_pct = dram;
  return k;
}

const Direction* direction_of(const Diagnosis& d, const std::string& family) {
  const auto it = std::find_if(d.directions.begin(), d.directions.end(),
                               [&](const Direction& x) { return x.family == family; });
  return it == d.directions.end() ? nullptr : &*it;
}

TEST(DiagnosisRules, AnL2BoundKernelPointsToReuseOnTheSmNotFewerDramBytes) {
  RegimeEvidence e = evidence(3.7, 0.44, "compute");
  e.kernels = {by_unit(80, 57, 45)};
  const Diagnosis d = diagnose(e);
  EXPECT_EQ(d.bottleneck, "memory");
  EXPECT_NE(d.reason.find("by unit: L2 80%, L1 57%, DRAM 45%"), std::string::npos) << d.reason;
  const Direction* reuse = direction_of(d, "data_reuse");
  ASSERT_NE(reuse, nullptr);
  EXPECT_NE(reuse->title.find("multicast"), std::string::npos) << reuse->title;
  EXPECT_NE(reuse->why.find("L2 at 80% of its peak, DRAM at 45%"), std::string::npos) << reuse->why;
  EXPECT_EQ(memory_units_text(e.kernels[0]), "L2 80%, L1 57%, DRAM 45%");
}

TEST(DiagnosisRules, AnL1BoundKernelPointsToFewerSharedMemoryAccesses) {
  RegimeEvidence e = evidence(3.7, 0.44, "compute");
  e.kernels = {by_unit(50, 84, 30)};
  const Diagnosis d = diagnose(e);
  const Direction* reuse = direction_of(d, "data_reuse");
  ASSERT_NE(reuse, nullptr);
  EXPECT_NE(reuse->title.find("shared-memory"), std::string::npos) << reuse->title;
  EXPECT_NE(reuse->why.find("L1/shared memory at 84%"), std::string::npos) << reuse->why;
}

TEST(DiagnosisRules, DramBoundOrUnmeasuredUnitsGiveNoOnChipDirection) {
  RegimeEvidence e = evidence(0.5, 0.5, "memory");
  e.kernels = {by_unit(70, 40, 80)};  // DRAM the busiest: fewer DRAM bytes is the point
  Diagnosis d = diagnose(e);
  EXPECT_EQ(d.bottleneck, "memory");
  EXPECT_NE(d.reason.find("by unit: DRAM 80%, L2 70%, L1 40%"), std::string::npos) << d.reason;
  EXPECT_FALSE(suggests(d, "data_reuse"));
  e.kernels = {by_unit(80, 57, 65)};  // DRAM close behind L2 (over 75% of it): both bound
  EXPECT_FALSE(suggests(diagnose(e), "data_reuse"));
  e.kernels = {kernel(53, 81)};  // a profile from before the units were asked for
  d = diagnose(e);
  EXPECT_EQ(d.reason, "memory throughput 81% of peak (SM 53%)");
  EXPECT_FALSE(suggests(d, "data_reuse"));
  EXPECT_EQ(memory_units_text(e.kernels[0]), "");
}

}  // namespace
}  // namespace kh::profile
