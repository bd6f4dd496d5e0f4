// The options a run was measured with survive the archive: rerun reads back exactly what
// shaped the measurement, and an older record missing a newer field keeps its meaning.
#include "eval/eval_options_json.h"

#include <gtest/gtest.h>

#include "error/error.h"

namespace kh {
namespace {

TEST(EvalOptionsJson, EveryMeasurementFieldRoundTrips) {
  EvalOptions o;
  o.backend = "cuda";
  o.arch = "sm_90a";
  o.protocol.kind = ProtocolKind::robust;
  o.correctness_trials = 5;
  o.protocol.warmup = 7;
  o.protocol.iterations = 33;
  o.protocol.trials = 2;
  o.protocol.stop.max_noise = 0.02;
  o.recheck = 6;
  o.throttle_ratio = 0.5;
  o.timeout = std::chrono::seconds(42);
  o.input_set_budget_bytes = 1234;
  o.time_candidate = false;
  o.time_reference = false;
  o.speed_of_light = false;
  o.seed = 99;
  const EvalOptions back = options_from_json(options_to_json(o));
  EXPECT_EQ(back.backend, "cuda");
  EXPECT_EQ(back.arch, "sm_90a");
  EXPECT_EQ(back.protocol.kind, ProtocolKind::robust);
  EXPECT_EQ(back.correctness_trials, 5);
  EXPECT_EQ(back.protocol.warmup, 7);
  EXPECT_EQ(back.protocol.iterations, 33);
  EXPECT_EQ(back.protocol.trials, 2);
  EXPECT_DOUBLE_EQ(back.protocol.stop.max_noise, 0.02);
  EXPECT_EQ(back.recheck, 6);
  EXPECT_DOUBLE_EQ(back.throttle_ratio, 0.5);
  EXPECT_EQ(back.timeout, std::chrono::seconds(42));
  EXPECT_EQ(back.input_set_budget_bytes, 1234u);
  EXPECT_FALSE(back.time_candidate) << "a rerun of a --no-timing run would time the candidate";
  EXPECT_FALSE(back.time_reference);
  EXPECT_FALSE(back.speed_of_light);
  ASSERT_TRUE(back.seed.has_value());
  EXPECT_EQ(*back.seed, 99u);
}

TEST(EvalOptionsJson, ARecordFromBeforeNoTimingWasTimed) {
  const EvalOptions back = options_from_json({{"backend", "cpu"}, {"time_reference", true}});
  EXPECT_TRUE(back.time_candidate);
}

TEST(EvalOptionsJson, AWrongTypeNamesTheField) {
  try {
    (void)options_from_json({{"time_candidate", "yes"}});
    FAIL() << "a string for a bool was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("options.time_candidate"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kh
