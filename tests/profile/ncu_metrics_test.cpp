// The ncu raw-page parser: hand-written cases in the layout ncu 2025 prints, and two
// fixtures captured on the H200 (tests/profile/fixtures/, ncu 2025.3.1,
// --clock-control none): the `--page raw` CSV that kharness's own ncu driver asked for
// (gdn decode baseline, large regime) and a raw page of whole sections with kharness's
// table printed before it (rmsnorm_h4096 baseline). The expected values were read from
// the fixtures' named columns with Python's csv module, not from this parser.
#include "profile/ncu_metrics.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "error/error.h"

namespace kh::profile {
namespace {

const char* kTwoLaunches =
    "==PROF== Connected to process 4242 (/opt/kharness)\n"
    "\"ID\",\"Process ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes.sum\","
    "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
    "\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\",\"launch__registers_per_thread\","
    "\"launch__waves_per_multiprocessor\",\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_"
    "active.ratio\","
    "\"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio\"\n"
    "\"\",\"\",\"\",\"nsecond\",\"Mbyte\",\"%\",\"%\",\"register/thread\",\"\",\"ratio\",\"ratio\"\n"
    "\"0\",\"4242\",\"rmsnorm_kernel(const __nv_bfloat16 *, "
    "int)\",\"12,480\",\"33.55\",\"21.4\",\"88.9\",\"32\","
    "\"3.88\",\"5.5\",\"0.75\"\n"
    "\"1\",\"4242\",\"other\",\"1,024\",\"0.1\",\"1\",\"2\",\"16\",\"0.02\",\"0\",\"1.5\"\n";

TEST(NcuMetrics, ParsesRowsWithUnitsAndSeparators) {
  const auto k = parse_ncu_raw_csv(kTwoLaunches);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].kernel, "rmsnorm_kernel(const __nv_bfloat16 *, int)");
  EXPECT_DOUBLE_EQ(k[0].duration_us, 12.48);
  EXPECT_DOUBLE_EQ(k[0].dram_bytes, 33.55e6);
  EXPECT_DOUBLE_EQ(k[0].sm_throughput_pct, 21.4);
  EXPECT_DOUBLE_EQ(k[0].memory_throughput_pct, 88.9);
  EXPECT_EQ(k[0].registers_per_thread, 32);
  EXPECT_DOUBLE_EQ(k[0].waves_per_sm, 3.88);
  ASSERT_EQ(k[0].top_stalls.size(), 2u);
  EXPECT_EQ(k[0].top_stalls[0].first, "long_scoreboard");
  EXPECT_EQ(k[1].top_stalls.front().first, "barrier");
  EXPECT_DOUBLE_EQ(k[1].duration_us, 1.024);
}

TEST(NcuMetrics, MalformedInputNamesTheRow) {
  EXPECT_THROW((void)parse_ncu_raw_csv("no table here\n"), Error);
  try {
    (void)parse_ncu_raw_csv("\"ID\",\"Kernel Name\"\n\"\",\"\"\n\"0\",\"k\",\"extra\"\n");
    FAIL() << "a row of the wrong width was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("3 fields"), std::string::npos) << e.what();
  }
}

TEST(NcuMetrics, AsksForEveryMetricItParses) {
  const auto& names = ncu_metric_names();
  for (const char* m : {"gpu__time_duration.sum", "dram__bytes.sum", "launch__waves_per_multiprocessor",
                        "lts__t_sector_hit_rate.pct", "sm__warps_active.avg.pct_of_peak_sustained_active",
                        "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                        "lts__throughput.avg.pct_of_peak_sustained_elapsed",
                        "l1tex__throughput.avg.pct_of_peak_sustained_active"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), m), names.end()) << m;
  }
}

std::string fixture(const std::string& name) {
  const auto path = std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/profile/fixtures" / name;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(NcuMetrics, H200DriverCaptureOfTheGdnDecodeBaseline) {
  const std::string csv = fixture("h200_gdn_decode_large_ncu_raw.csv");
  ASSERT_FALSE(csv.empty()) << "fixture missing";
  const auto k = parse_ncu_raw_csv(csv);
  ASSERT_EQ(k.size(), 1u) << "one launch in the NVTX range";
  EXPECT_EQ(k[0].kernel, "<unnamed>::gdn_decode_baseline_kernel(<unnamed>::DecodeArgs)");
  EXPECT_DOUBLE_EQ(k[0].duration_us, 13.6);  // "13,600" nsecond
  EXPECT_DOUBLE_EQ(k[0].dram_bytes, 29288704);
  EXPECT_DOUBLE_EQ(k[0].sm_throughput_pct, 32.5);
  EXPECT_DOUBLE_EQ(k[0].memory_throughput_pct, 45.86);
  EXPECT_EQ(k[0].registers_per_thread, 48);
  EXPECT_EQ(k[0].static_shared_bytes, 0);
  EXPECT_EQ(k[0].dynamic_shared_bytes, 0);
  EXPECT_DOUBLE_EQ(k[0].theoretical_occupancy_pct, 62.5);
  EXPECT_DOUBLE_EQ(k[0].achieved_occupancy_pct, 52.92);
  EXPECT_DOUBLE_EQ(k[0].waves_per_sm, 2.33);
  EXPECT_DOUBLE_EQ(k[0].l2_hit_rate_pct, 52.53);
  ASSERT_FALSE(k[0].top_stalls.empty());
  EXPECT_EQ(k[0].top_stalls[0].first, "long_scoreboard");
  EXPECT_DOUBLE_EQ(k[0].top_stalls[0].second, 12.44);
}

TEST(NcuMetrics, H200SectionPageAfterProgramOutput) {
  const auto k = parse_ncu_raw_csv(fixture("h200_rmsnorm_h4096_sections_raw.csv"));
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].kernel, "<unnamed>::rmsnorm_baseline_kernel(const uint4 *, const uint4 *, uint4 *)");
  EXPECT_DOUBLE_EQ(k[0].duration_us, 2.72);
  EXPECT_EQ(k[0].registers_per_thread, 40);
  EXPECT_EQ(k[0].static_shared_bytes, 32);
  EXPECT_DOUBLE_EQ(k[0].waves_per_sm, 0.01);
  EXPECT_DOUBLE_EQ(k[0].theoretical_occupancy_pct, 75);
  EXPECT_DOUBLE_EQ(k[0].l2_hit_rate_pct, 50.95);
  // The speed-of-light section's breakdown by memory unit, as kharness asks for it by name.
  EXPECT_DOUBLE_EQ(k[0].dram_throughput_pct, 0.55);
  EXPECT_DOUBLE_EQ(k[0].l2_throughput_pct, 2.07);
  EXPECT_DOUBLE_EQ(k[0].l1_throughput_pct, 13.54);
  EXPECT_EQ(k[0].dram_bytes, 0) << "the sections page has no dram__bytes.sum: missing metrics are 0";
}

TEST(NcuMetrics, H200CaptureCarriesTheCallRange) {
  const auto k = parse_ncu_raw_csv(fixture("h200_gdn_decode_large_ncu_raw.csv"));
  ASSERT_EQ(k.size(), 1u);
  EXPECT_NE(k[0].nvtx_stack.find("<default domain>:kh_candidate_2:none"), std::string::npos)
      << k[0].nvtx_stack;
}

}  // namespace
}  // namespace kh::profile
