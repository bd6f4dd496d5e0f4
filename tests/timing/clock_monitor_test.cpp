#include "timing/clock_monitor.h"

#include <gtest/gtest.h>

namespace kh {
namespace {

TEST(ClockMonitor, ThrottledBelowThreeQuartersOfNominal) {
  EXPECT_FALSE(ClockMonitor::throttled(1980, 1980));
  EXPECT_FALSE(ClockMonitor::throttled(1485, 1980));  // exactly 75%
  EXPECT_TRUE(ClockMonitor::throttled(1484, 1980));
  EXPECT_TRUE(ClockMonitor::throttled(345, 1980));
}

TEST(ClockMonitor, UnknownNominalNeverThrottles) {
  EXPECT_FALSE(ClockMonitor::throttled(100, 0));
  EXPECT_FALSE(ClockMonitor::throttled(100, -1));
}

// Holds with and without NVML: either clocks are read, or the monitor says why not.
TEST(ClockMonitor, AvailableOrSaysWhyNot) {
  ClockMonitor monitor("");
  if (monitor.available()) {
    EXPECT_TRUE(monitor.unavailable_reason().empty());
    ASSERT_TRUE(monitor.nominal_sm_clock_mhz().has_value());
    EXPECT_GT(*monitor.nominal_sm_clock_mhz(), 0.0);
    EXPECT_FALSE(monitor.driver_version().empty());
  } else {
    EXPECT_FALSE(monitor.unavailable_reason().empty());
    EXPECT_FALSE(monitor.sm_clock_mhz().has_value());
    EXPECT_FALSE(monitor.nominal_sm_clock_mhz().has_value());
  }
}

TEST(ClockMonitor, UnknownBusIdIsUnavailableWithReason) {
  ClockMonitor monitor("ffff:ff:ff.0");
  EXPECT_FALSE(monitor.available());
  EXPECT_FALSE(monitor.unavailable_reason().empty());
}

}  // namespace
}  // namespace kh
