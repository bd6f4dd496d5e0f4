#include "timing/activity_windows.h"

#include <gtest/gtest.h>

namespace kh {
namespace {

constexpr std::uint64_t kUs = 1000;

WindowRule no_slack() {
  WindowRule rule;
  rule.slack_ns = 0;
  return rule;
}

// The rule as the span timer uses it: 2 us of slack, the harness's stream 3.
WindowRule with_housekeeping() {
  WindowRule rule;
  rule.slack_ns = 2 * kUs;
  rule.housekeeping_streams = {3};
  return rule;
}

// Two windows, 100-200 us and 300-400 us.
const std::vector<TimingWindow> kTwoWindows = {{100 * kUs, 200 * kUs, 0}, {300 * kUs, 400 * kUs, 0}};

TEST(ActivityWindows, SpanIsFirstStartToLastEndAcrossStreams) {
  const std::vector<TimingWindow> windows = {{100 * kUs, 500 * kUs, 0.4}};
  const std::vector<ActivityRecord> records = {
      {110 * kUs, 120 * kUs, 7},  // the candidate's stream
      {115 * kUs, 330 * kUs, 9},  // a side stream: ends last
  };
  const WindowAssignment result = assign_to_windows(records, {}, windows, no_slack());
  ASSERT_EQ(result.samples.size(), 1u);
  EXPECT_TRUE(result.samples[0].valid);
  EXPECT_EQ(result.samples[0].activities, 2);
  EXPECT_DOUBLE_EQ(result.samples[0].span_ms, 0.220);
  EXPECT_DOUBLE_EQ(result.samples[0].host_ms, 0.4);
  EXPECT_EQ(result.strays, 0u);
}

TEST(ActivityWindows, WindowWithoutRecordsIsInvalidNotZero) {
  const std::vector<TimingWindow> windows = {{100 * kUs, 200 * kUs, 0.1}, {300 * kUs, 400 * kUs, 0.1}};
  const std::vector<ActivityRecord> records = {{310 * kUs, 320 * kUs, 7}};
  const WindowAssignment result = assign_to_windows(records, {}, windows, no_slack());
  ASSERT_EQ(result.samples.size(), 2u);
  EXPECT_FALSE(result.samples[0].valid);
  EXPECT_EQ(result.samples[0].activities, 0);
  EXPECT_TRUE(result.samples[1].valid);
}

TEST(ActivityWindows, RecordsGoToTheWindowHoldingTheirStart) {
  const std::vector<TimingWindow> windows = {{100 * kUs, 200 * kUs, 0}, {300 * kUs, 400 * kUs, 0}};
  const std::vector<ActivityRecord> records = {{350 * kUs, 360 * kUs, 7}, {150 * kUs, 170 * kUs, 7}};
  const WindowAssignment result = assign_to_windows(records, {}, windows, no_slack());
  EXPECT_DOUBLE_EQ(result.samples[0].span_ms, 0.020);
  EXPECT_DOUBLE_EQ(result.samples[1].span_ms, 0.010);
}

TEST(ActivityWindows, StraysAreCountedButNotBeforeTimingNorOnHousekeepingStreams) {
  WindowRule rule = no_slack();
  rule.housekeeping_streams = {3};
  const std::vector<TimingWindow> windows = {{100 * kUs, 200 * kUs, 0}, {300 * kUs, 400 * kUs, 0}};
  const std::vector<ActivityRecord> records = {
      {10 * kUs, 20 * kUs, 7},    // warm-up, before timing began: ignored
      {250 * kUs, 260 * kUs, 3},  // the harness's flush between windows: ignored
      {210 * kUs, 220 * kUs, 7},  // the candidate's straggler between windows: stray
      {450 * kUs, 460 * kUs, 9},  // after the last window: stray
      {150 * kUs, 160 * kUs, 7}, {350 * kUs, 360 * kUs, 7},
  };
  const WindowAssignment result = assign_to_windows(records, {}, windows, rule);
  EXPECT_EQ(result.strays, 2u);
  EXPECT_EQ(result.samples[0].activities, 1);
  EXPECT_EQ(result.samples[1].activities, 1);
}

TEST(ActivityWindows, SlackAbsorbsTimestampSkewAtTheEdges) {
  WindowRule rule;
  rule.slack_ns = 2 * kUs;
  const std::vector<TimingWindow> windows = {{100 * kUs, 200 * kUs, 0}};
  const std::vector<ActivityRecord> records = {{99 * kUs, 150 * kUs, 7}, {97 * kUs, 98 * kUs, 7}};
  const WindowAssignment result = assign_to_windows(records, {}, windows, rule);
  EXPECT_EQ(result.samples[0].activities, 1);  // 99 us is within the slack, 97 us is not
  EXPECT_DOUBLE_EQ(result.samples[0].span_ms, 0.051);
  EXPECT_EQ(result.strays, 0u);  // 97 us started before timing began
}

TEST(ActivityWindows, HousekeepingWorkCountsInsideAWindowButNotInItsTrailingSlack) {
  const WindowRule rule = with_housekeeping();
  const std::vector<TimingWindow>& windows = kTwoWindows;
  const std::vector<ActivityRecord> records = {
      {110 * kUs, 120 * kUs, 7},
      {150 * kUs, 190 * kUs, 3},  // on the harness's stream inside the window: still the call's
      {310 * kUs, 320 * kUs, 7},
      {401 * kUs, 430 * kUs, 3},  // the harness hashing right after the last window: not the call's
      {401 * kUs, 405 * kUs, 7},  // the candidate's, in the slack: the call's
  };
  const WindowAssignment result = assign_to_windows(records, {}, windows, rule);
  EXPECT_EQ(result.samples[0].activities, 2);
  EXPECT_DOUBLE_EQ(result.samples[0].span_ms, 0.080);
  EXPECT_EQ(result.samples[1].activities, 2);
  EXPECT_DOUBLE_EQ(result.samples[1].span_ms, 0.095);
  EXPECT_EQ(result.strays, 0u);
}

TEST(ActivityWindows, NoWindowsMeansNoSamplesAndNoStrays) {
  const WindowAssignment result = assign_to_windows({{1, 2, 0}}, {}, {}, WindowRule{});
  EXPECT_TRUE(result.samples.empty());
  EXPECT_EQ(result.strays, 0u);
}

// Seen on the H200: CUPTI mapped an honest 3 us kernel's start 10 us before its own launch,
// out of its window (invalid), between windows (a stray). Its launch, on the host clock,
// was inside: the window holds it.
TEST(ActivityWindows, WorkGoesToTheWindowItWasLaunchedInWhateverItsMappedStart) {
  WindowRule rule;
  rule.slack_ns = 2 * kUs;
  const std::vector<TimingWindow> windows = {{100 * kUs, 200 * kUs, 0}, {300 * kUs, 400 * kUs, 0}};
  const std::vector<ActivityRecord> records = {{95 * kUs, 98 * kUs, 7, 41}, {292 * kUs, 295 * kUs, 7, 42}};
  const std::vector<LaunchRecord> launches = {{41, 104 * kUs}, {42, 303 * kUs}, {42, 304 * kUs}};
  const WindowAssignment result = assign_to_windows(records, launches, windows, rule);
  ASSERT_EQ(result.samples.size(), 2u);
  EXPECT_TRUE(result.samples[0].valid);
  EXPECT_TRUE(result.samples[1].valid);
  EXPECT_DOUBLE_EQ(result.samples[1].span_ms, 0.003);  // the span stays on the GPU's clock
  EXPECT_EQ(result.strays, 0u);
  // Without launch records the same activities fall out of their windows.
  const WindowAssignment by_time = assign_to_windows(records, {}, windows, rule);
  EXPECT_FALSE(by_time.samples[1].valid);
  EXPECT_EQ(by_time.strays, 1u);
}

// Work launched after the call returned (a thread of the candidate's, or a callback) is
// a stray even where its device time falls inside the next window.
TEST(ActivityWindows, WorkLaunchedOutsideEveryWindowIsAStrayWhereverItRan) {
  const WindowRule rule = with_housekeeping();
  const std::vector<TimingWindow>& windows = kTwoWindows;
  const std::vector<ActivityRecord> records = {
      {110 * kUs, 120 * kUs, 7, 1},
      {310 * kUs, 390 * kUs, 9, 2},  // ran in window 2, launched at 250 us, between windows
      {320 * kUs, 330 * kUs, 7, 3},
      {250 * kUs, 280 * kUs, 3, 4},  // the harness's flush between windows: not a stray
      {20 * kUs, 30 * kUs, 7, 5},    // a warm-up call's: before timing
  };
  const std::vector<LaunchRecord> launches = {
      {1, 105 * kUs}, {2, 250 * kUs}, {3, 305 * kUs}, {4, 240 * kUs}, {5, 15 * kUs}};
  const WindowAssignment result = assign_to_windows(records, launches, windows, rule);
  EXPECT_EQ(result.strays, 1u);
  EXPECT_EQ(result.samples[1].activities, 1);
  EXPECT_DOUBLE_EQ(result.samples[1].span_ms, 0.010);
}

// An activity whose launch CUPTI did not trace (correlation id 0, or none recorded) is
// placed by its own start, as before.
TEST(ActivityWindows, WorkWithoutALaunchRecordFallsBackToItsStart) {
  const std::vector<TimingWindow> windows = {{100 * kUs, 200 * kUs, 0}};
  const std::vector<ActivityRecord> records = {{150 * kUs, 160 * kUs, 7, 0}, {170 * kUs, 180 * kUs, 7, 99}};
  const WindowAssignment result = assign_to_windows(records, {{0, 500 * kUs}}, windows, no_slack());
  EXPECT_EQ(result.samples[0].activities, 2);
  EXPECT_EQ(result.strays, 0u);
}

}  // namespace
}  // namespace kh
