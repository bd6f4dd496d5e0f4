#include "timing/steady_clock_timer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "error/error.h"

namespace kh {
namespace {

TEST(SteadyClockTimer, MeasuresASleepWithinTolerance) {
  SteadyClockTimer timer;
  timer.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  timer.stop();
  const auto samples = timer.finish();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_TRUE(samples[0].valid);
  EXPECT_GE(samples[0].span_ms, 20.0);
  EXPECT_LT(samples[0].span_ms, 60.0);  // generous: CI machines are noisy
  EXPECT_DOUBLE_EQ(samples[0].host_ms, samples[0].span_ms);
}

TEST(SteadyClockTimer, RealWindowsAreNeverInvalid) {
  SteadyClockTimer timer;
  for (int i = 0; i < 5; ++i) {
    timer.start();
    timer.stop();
  }
  const auto samples = timer.finish();
  ASSERT_EQ(samples.size(), 5u);
  for (const IterationSample& s : samples) {
    EXPECT_TRUE(s.valid);
    EXPECT_EQ(s.activities, 1);
    EXPECT_GE(s.span_ms, 0.0);
  }
}

TEST(SteadyClockTimer, FinishResets) {
  SteadyClockTimer timer;
  timer.start();
  timer.stop();
  EXPECT_EQ(timer.finish().size(), 1u);
  EXPECT_TRUE(timer.finish().empty());
  EXPECT_EQ(timer.stray_activities(), 0u);
  EXPECT_EQ(timer.name(), "steady_clock");
}

TEST(SteadyClockTimer, MisuseThrows) {
  SteadyClockTimer timer;
  EXPECT_THROW(timer.stop(), Error);
  timer.start();
  EXPECT_THROW(timer.start(), Error);
  EXPECT_THROW(static_cast<void>(timer.finish()), Error);
}

}  // namespace
}  // namespace kh
