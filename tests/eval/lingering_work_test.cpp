// When does work after a call returned make a verdict? Every period, or more than one and
// more than 1 in 20 of them: a single late period of an honest thread pool is noise.
#include <gtest/gtest.h>

#include "eval/wire/timed_result.h"
#include "eval/wire/worker_payload.h"

namespace kh {
namespace {

LingeringWork period(double cpu_ms, int started = 0) {
  LingeringWork w;
  w.cpu_ms = cpu_ms;
  w.threads_started = started;
  w.periods = 1;
  w.periods_with_work = w.work() ? 1 : 0;
  return w;
}

LingeringWork periods(int quiet, int busy) {
  LingeringWork all;
  for (int i = 0; i < quiet; ++i) all.add(period(0.01));
  for (int i = 0; i < busy; ++i) all.add(period(0.8));
  return all;
}

TEST(LingeringWork, AThreadStartedOrCpuAboveTheFloorIsWork) {
  EXPECT_FALSE(period(kLingeringCpuMs).work());
  EXPECT_TRUE(period(kLingeringCpuMs + 0.01).work());
  EXPECT_TRUE(period(0, 1).work());
}

TEST(LingeringWork, OneLatePeriodAmongManyIsNoise) {
  EXPECT_FALSE(periods(59, 1).repeated());
  EXPECT_FALSE(periods(2, 1).repeated()) << "one of three correctness calls";
  EXPECT_FALSE(periods(60, 0).repeated());
}

TEST(LingeringWork, WorkOnEveryCallOrOnMoreThanOneInTwentyIsCaught) {
  EXPECT_TRUE(periods(0, 1).repeated()) << "the only call";
  EXPECT_TRUE(periods(0, 60).repeated());
  EXPECT_TRUE(periods(1, 2).repeated());
  EXPECT_TRUE(periods(56, 4).repeated()) << "4 of 60 is more than 1 in 20";
  EXPECT_FALSE(periods(57, 3).repeated()) << "3 of 60 is 1 in 20";
}

TEST(LingeringWork, AddKeepsTheWorstPeriodAndCountsAll) {
  LingeringWork all = periods(3, 0);
  all.add(period(2.5));
  all.add(period(0.7));
  EXPECT_DOUBLE_EQ(all.cpu_ms, 2.5);
  EXPECT_EQ(all.periods, 5);
  EXPECT_EQ(all.periods_with_work, 2);
  EXPECT_NE(all.describe().find("2 grace period(s) with work, of 5"), std::string::npos) << all.describe();
}

TEST(LingeringWork, TheWireCarriesTheCounts) {
  const LingeringWork back = lingering_from_json(lingering_to_json(periods(7, 2)));
  EXPECT_EQ(back.periods, 9);
  EXPECT_EQ(back.periods_with_work, 2);
  EXPECT_DOUBLE_EQ(back.cpu_ms, 0.8);
}

}  // namespace
}  // namespace kh
