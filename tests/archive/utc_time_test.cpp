// The archive's timestamps as the loop reads them back: how far apart two runs were.
#include "archive/utc_time.h"

#include <gtest/gtest.h>

namespace kh::archive {
namespace {

TEST(UtcTime, SecondsBetweenTwoTimestampsAcrossADayAndAYear) {
  EXPECT_NEAR(seconds_between("2026-12-31T23:59:59.250Z", "2027-01-01T00:00:01.000Z").value(), 1.75, 1e-9);
  EXPECT_NEAR(seconds_between("2026-12-07T10:00:00Z", "2026-12-07T09:59:00.500Z").value(), -59.5, 1e-9);
}

TEST(UtcTime, NowReadsBackAsATimestamp) {
  const std::string now = utc_now();
  EXPECT_NEAR(seconds_between(now, now).value(), 0.0, 1e-9);
  EXPECT_GE(seconds_between(now, utc_now()).value(), 0.0);
}

TEST(UtcTime, AnythingElseIsNotATimestamp) {
  for (const char* bad : {"", "2026-12-07", "2026-12-07T10:00:00", "2026-12-07T10:00:00+01:00",
                          "2026-12-07T10:00:00.5Z", "2026-12-07T10:00:00.123Zx", "yesterday"}) {
    EXPECT_FALSE(seconds_between(bad, "2026-12-07T10:00:00Z").has_value()) << bad;
    EXPECT_FALSE(seconds_between("2026-12-07T10:00:00Z", bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace kh::archive
