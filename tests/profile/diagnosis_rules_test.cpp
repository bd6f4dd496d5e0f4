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

TEST(DiagnosisRules, NearTheFloorSaysDoLessWork) {
  RegimeEvidence e = evidence(0.1, 0.9, "memory");
  e.kernels = {kernel(20, 88)};
  const Diagnosis d = diagnose(e);
  EXPECT_EQ(d.bottleneck, "memory");
  EXPECT_TRUE(suggests(d, "algorithmic"));
  EXPECT_FALSE(suggests(d, "memory_access"));
}

}  // namespace
}  // namespace kh::profile
