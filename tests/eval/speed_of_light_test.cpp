#include "eval/speed_of_light.h"

#include <gtest/gtest.h>

#include "error/error.h"
#include "eval/device_peaks_json.h"

namespace kh {
namespace {

SpeedOfLightModel gemm_model() {
  return parse_speed_of_light(
      nlohmann::ordered_json{
          {"flops", "2 * M * N * K"}, {"bytes", "2 * (M * K + N * K + M * N)"}, {"compute", "bf16_tensor"}},
      Location{"operator.json", 0, "speed_of_light"});
}

TEST(SpeedOfLight, EvaluatesFormulasOverAxes) {
  const WorkloadWork w = evaluate_work(gemm_model(), AxisValues{{"M", 128}, {"N", 4096}, {"K", 4096}});
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 128 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(w.bytes, 2.0 * (128 * 4096 + 4096 * 4096 + 128 * 4096));
}

TEST(SpeedOfLight, FloorIsTheSlowerOfComputeAndMemory) {
  DevicePeaks peaks;
  peaks.bandwidth = 4e12;
  peaks.fp32 = 60e12;
  peaks.bf16_tensor = 700e12;
  // M = 1: 2*4096*4096 flops over ~33.6 MB: memory-bound.
  const WorkloadWork small = evaluate_work(gemm_model(), AxisValues{{"M", 1}, {"N", 4096}, {"K", 4096}});
  const auto s = speed_of_light(small, ComputeUnit::bf16_tensor, peaks);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->bound, "memory");
  EXPECT_DOUBLE_EQ(s->floor_s, small.bytes / 4e12);
  EXPECT_NEAR(s->ridge, 175.0, 1e-9);
  // M = 8192: intensity ~2700 flop/byte: compute-bound at the bf16 rate.
  const WorkloadWork big = evaluate_work(gemm_model(), AxisValues{{"M", 8192}, {"N", 4096}, {"K", 4096}});
  const auto b = speed_of_light(big, ComputeUnit::bf16_tensor, peaks);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->bound, "compute");
  EXPECT_DOUBLE_EQ(b->floor_s, big.flops / 700e12);
}

// A call moving a few kilobytes has a bandwidth floor of nanoseconds; the device's
// empty-kernel latency is the part of it no kernel can beat.
TEST(SpeedOfLight, FloorAddsTheMeasuredLaunchLatency) {
  DevicePeaks peaks;
  peaks.bandwidth = 4e12;
  peaks.fp32 = 60e12;
  peaks.launch_latency = 1e-6;
  const WorkloadWork tiny{1e3, 8e3};
  const auto s = speed_of_light(tiny, ComputeUnit::fp32, peaks);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->bound, "memory");
  EXPECT_DOUBLE_EQ(s->launch_s, 1e-6);
  EXPECT_DOUBLE_EQ(s->floor_s, 8e3 / 4e12 + 1e-6);
  EXPECT_GT(s->floor_s / 1.05e-6, 0.95) << "a kernel at 1.05 us is near its floor, not at 0.2% of it";
}

TEST(SpeedOfLight, NoFloorWithoutTheNeededPeak) {
  DevicePeaks peaks;
  peaks.bandwidth = 4e12;  // fp8 never measured (e.g. cuBLASLt refused)
  EXPECT_FALSE(speed_of_light(WorkloadWork{1e9, 1e6}, ComputeUnit::fp8_tensor, peaks).has_value());
  EXPECT_TRUE(speed_of_light(WorkloadWork{0, 1e6}, ComputeUnit::fp8_tensor, peaks).has_value());
}

TEST(SpeedOfLight, ErrorsNameTheField) {
  const Location where{"ops/x/operator.json", 0, "speed_of_light"};
  try {
    (void)parse_speed_of_light(nlohmann::ordered_json{{"flops", "2 * M"}}, where);
    FAIL() << "missing bytes accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("speed_of_light.bytes"), std::string::npos) << e.what();
  }
  try {
    (void)parse_speed_of_light(nlohmann::ordered_json{{"flops", "2 * (M"}, {"bytes", "M"}}, where);
    FAIL() << "unbalanced parenthesis accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not parse"), std::string::npos) << e.what();
  }
  try {
    (void)parse_speed_of_light(nlohmann::ordered_json{{"flops", "M"}, {"bytes", "M"}, {"compute", "tf32"}},
                               where);
    FAIL() << "unknown unit accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tf32"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)evaluate_work(gemm_model(), AxisValues{{"M", 1}}), Error);  // N, K unknown
}

TEST(SpeedOfLight, PeaksRoundTripThroughJson) {
  DevicePeaks p{4.1e12, 6.6e13, 7.2e14, 1.3e15, "measured", 1.2e-6};
  const DevicePeaks q = peaks_from_json(peaks_json(p));
  EXPECT_DOUBLE_EQ(q.launch_latency, 1.2e-6);
  EXPECT_DOUBLE_EQ(q.bandwidth, p.bandwidth);
  EXPECT_DOUBLE_EQ(q.fp32, p.fp32);
  EXPECT_DOUBLE_EQ(q.bf16_tensor, p.bf16_tensor);
  EXPECT_DOUBLE_EQ(q.fp8_tensor, p.fp8_tensor);
  EXPECT_EQ(q.method, "measured");
  EXPECT_THROW((void)peaks_from_json(nlohmann::ordered_json{{"fp32_flops", 1.0}}), Error);
  // Peaks stored before the launch latency existed read as none.
  nlohmann::ordered_json old = peaks_json(p);
  old.erase("launch_latency_s");
  EXPECT_DOUBLE_EQ(peaks_from_json(old).launch_latency, 0.0);
}

}  // namespace
}  // namespace kh
