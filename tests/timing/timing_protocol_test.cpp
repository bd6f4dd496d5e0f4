#include "timing/timing_protocol.h"

#include <gtest/gtest.h>

#include <vector>

#include "error/error.h"

namespace kh {
namespace {

TimingProtocol custom() {
  TimingProtocol p;
  p.kind = ProtocolKind::robust;
  p.warmup = 4;
  p.iterations = 17;
  p.trials = 5;
  p.stop.max_noise = 0.03;
  p.stop.min_samples = 12;
  p.stop.min_time_s = 0.25;
  p.stop.timeout_s = 9;
  p.stop.max_samples = 777;
  return p;
}

TEST(TimingProtocol, TheCodecGivesBackWhatItWrote) {
  nlohmann::ordered_json j = {{"unrelated", 1}};
  write_protocol(j, custom());
  const TimingProtocol back = read_protocol(j, "options");
  EXPECT_EQ(back.kind, ProtocolKind::robust);
  EXPECT_EQ(back.warmup, 4);
  EXPECT_EQ(back.iterations, 17);
  EXPECT_EQ(back.trials, 5);
  EXPECT_DOUBLE_EQ(back.stop.max_noise, 0.03);
  EXPECT_EQ(back.stop.min_samples, 12U);
  EXPECT_DOUBLE_EQ(back.stop.min_time_s, 0.25);
  EXPECT_DOUBLE_EQ(back.stop.timeout_s, 9);
  EXPECT_EQ(back.stop.max_samples, 777U);
  EXPECT_EQ(j.at("unrelated"), 1) << "the codec writes its own keys only";
}

TEST(TimingProtocol, AbsentKeysKeepTheDefaults) {
  const TimingProtocol back = read_protocol(nlohmann::ordered_json::object(), "options");
  const TimingProtocol defaults;
  EXPECT_EQ(back.kind, ProtocolKind::official);
  EXPECT_EQ(back.warmup, defaults.warmup);
  EXPECT_EQ(back.iterations, defaults.iterations);
  EXPECT_EQ(back.trials, defaults.trials);
  EXPECT_DOUBLE_EQ(back.stop.max_noise, defaults.stop.max_noise);
}

TEST(TimingProtocol, BadValuesNameTheField) {
  try {
    (void)read_protocol({{"protocol", "fastest"}}, "options");
    FAIL() << "an unknown protocol was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("options.protocol"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fastest"), std::string::npos) << e.what();
  }
  try {
    (void)read_protocol({{"robust", {{"max_noise", "low"}}}}, "options");
    FAIL() << "a string noise target was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("options.robust.max_noise"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)read_protocol(nlohmann::ordered_json::array(), "options"), Error);
}

TEST(TimingProtocol, NamesParseBothWaysAndNothingElse) {
  for (ProtocolKind k : {ProtocolKind::official, ProtocolKind::robust})
    EXPECT_EQ(protocol_kind_from_name(protocol_name(k)), k);
  EXPECT_FALSE(protocol_kind_from_name("Official"));
  EXPECT_FALSE(protocol_kind_from_name(""));
}

TEST(TimingProtocol, TheStatisticFollowsTheKind) {
  const std::vector<double> trial_medians = {1.0, 2.0, 6.0};
  TimingProtocol p;
  EXPECT_DOUBLE_EQ(p.latency_ms(trial_medians, 2.5), 3.0) << "official: the mean of per-trial medians";
  EXPECT_EQ(p.trial_count(), 3);
  EXPECT_EQ(p.planned_iterations(), 50U);
  EXPECT_EQ(p.description().at("statistic"), "mean of per-trial medians");
  const TimingProtocol r = p.as(ProtocolKind::robust);
  EXPECT_DOUBLE_EQ(r.latency_ms(trial_medians, 2.5), 2.5) << "robust: the pooled median";
  EXPECT_EQ(r.trial_count(), 1);
  EXPECT_EQ(r.planned_iterations(), 64U);
  EXPECT_EQ(r.description().at("stop").at("criterion"), "stdrel");
  EXPECT_EQ(r.warmup, p.warmup) << "as() keeps the settings";
}

}  // namespace
}  // namespace kh
