// Trajectory supervision on synthetic histories: one for each signal, a healthy run
// with none, and the choice between changing direction and asking a person.
#include "control/trajectory.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "round_fixtures.h"

namespace kh::control {
namespace {

using test::archived;
using test::make_round;
using test::promoted;

bool mentions(const Verdict& v, const std::string& word) {
  return std::any_of(v.reasons.begin(), v.reasons.end(),
                     [&](const std::string& r) { return r.find(word) != std::string::npos; });
}

bool excludes_family(const Verdict& v, const std::string& f) {
  return std::find(v.exclude_families.begin(), v.exclude_families.end(), f) != v.exclude_families.end();
}

TEST(Trajectory, AHealthyImprovingRunHasNoSignal) {
  // 10% better every round, a new family each time.
  std::vector<RoundRecord> h;
  double best = 1.0;
  const char* families[] = {"memory_access", "parallelism", "tiling", "knobs", "occupancy", "restructure"};
  for (int i = 0; i < 6; ++i) {
    h.push_back(promoted(i + 1, best, best * 0.9, families[i]));
    best *= 0.9;
  }
  const Verdict v = supervise(h);
  EXPECT_EQ(v.action, Action::proceed);
  EXPECT_TRUE(v.signals.empty()) << v.json().dump(2);
  EXPECT_TRUE(v.exclude_families.empty());
  EXPECT_TRUE(mentions(v, "no signal")) << v.json().dump(2);
}

TEST(Trajectory, NoPromotionInKRoundsIsAStall) {
  // Big gains first, then four rounds that pass but win nothing (within noise).
  std::vector<RoundRecord> h = {promoted(1, 1.0, 0.5, "memory_access"),
                                promoted(2, 0.5, 0.25, "parallelism")};
  for (int r = 3; r <= 6; ++r) h.push_back(archived(r, 0.25, 0.251, r % 2 == 0 ? "knobs" : "tiling"));
  SupervisionSettings s;
  s.stall_rounds = 4;
  s.plateau_window = 6;  // the window still holds the big gains: a stall, not a plateau
  const Verdict v = supervise(h, s);
  EXPECT_TRUE(v.has(SignalKind::stall)) << v.json().dump(2);
  EXPECT_FALSE(v.has(SignalKind::plateau)) << v.json().dump(2);
  EXPECT_EQ(v.action, Action::change_direction);
  EXPECT_TRUE(excludes_family(v, "knobs"));
  EXPECT_TRUE(excludes_family(v, "tiling"));
  EXPECT_FALSE(excludes_family(v, "memory_access"));
  EXPECT_TRUE(mentions(v, "no promotion in the last 4 rounds"));

  h.pop_back();  // three quiet rounds are not yet a stall
  EXPECT_FALSE(supervise(h, s).has(SignalKind::stall));
}

TEST(Trajectory, TheSameHypothesisAgainIsACycle) {
  std::vector<RoundRecord> h = {
      make_round(1, "memory_access", "vectorise loads", 0.9, 1.0, archive::DecisionKind::promote),
      make_round(2, "parallelism", "split rows", 0.95, 0.9),
      make_round(3, "memory_access", "vectorise loads", 0.89, 0.9),
  };
  const Verdict v = supervise(h);
  ASSERT_TRUE(v.has(SignalKind::cycle)) << v.json().dump(2);
  EXPECT_EQ(v.signals.front().earlier, 1);
  EXPECT_EQ(v.action, Action::change_direction);
  EXPECT_EQ(v.exclude_directions, std::vector<std::string>{"vectorise loads"});
  EXPECT_TRUE(mentions(v, "repeats round 1"));

  // In the exploit stage refining one hypothesis is the point: no cycle unless the code repeats.
  h.back().stage = Stage::exploit;
  EXPECT_FALSE(supervise(h).has(SignalKind::cycle));
}

TEST(Trajectory, TheSameCodeWithDifferentLayoutIsACycle) {
  // Rounds 1 and 3 proposed the same code with other whitespace and comments: the
  // loop stores normalised content hashes, so the two are equal.
  std::vector<RoundRecord> h = {
      make_round(1, "memory_access", "vectorise loads", 0.9, 1.0, archive::DecisionKind::promote, true,
                 "abc123"),
      make_round(2, "parallelism", "split rows", 0.95, 0.9),
      make_round(3, "tiling", "tile in shared memory", 0.9, 0.9, archive::DecisionKind::archive_only, true,
                 "abc123"),
  };
  const Verdict v = supervise(h);
  ASSERT_TRUE(v.has(SignalKind::cycle)) << v.json().dump(2);
  EXPECT_TRUE(mentions(v, "same code as round 1"));
  EXPECT_EQ(v.action, Action::change_direction);
}

TEST(Trajectory, RepeatedSlowerCandidatesInAFamilyAreARegression) {
  std::vector<RoundRecord> h = {promoted(1, 1.0, 0.8, "memory_access"),
                                archived(2, 0.8, 1.2, "tensor_cores")};
  SupervisionSettings s;
  s.regression_limit = 2;
  EXPECT_FALSE(supervise(h, s).has(SignalKind::regression)) << "one slow candidate is exploration";
  h.push_back(archived(3, 0.8, 1.1, "tensor_cores"));
  const Verdict v = supervise(h, s);
  ASSERT_TRUE(v.has(SignalKind::regression)) << v.json().dump(2);
  EXPECT_EQ(v.action, Action::change_direction);
  EXPECT_TRUE(excludes_family(v, "tensor_cores"));
  // Within noise is no regression.
  h.back() = archived(3, 0.8, 0.81, "tensor_cores");
  EXPECT_FALSE(supervise(h, s).has(SignalKind::regression));
}

TEST(Trajectory, ASlowerRetainedBestIsARegressionThatAsksWhenAllowed) {
  std::vector<RoundRecord> h = {promoted(1, 1.0, 0.5, "memory_access"), archived(2, 0.5, 0.6, "knobs"),
                                archived(3, 0.56, 0.6, "tiling")};
  Verdict v = supervise(h);
  ASSERT_TRUE(v.has(SignalKind::regression)) << v.json().dump(2);
  EXPECT_TRUE(mentions(v, "retained best measured 0.56 ms in round 3, 0.5 ms in round 1"));
  EXPECT_EQ(v.action, Action::proceed) << "with no one to ask, the loop re-measures and goes on";
  SupervisionSettings ask;
  ask.ask = true;
  EXPECT_EQ(supervise(h, ask).action, Action::ask_person);
}

TEST(Trajectory, SmallGainsOverTheWindowAreAPlateau) {
  // A promotion every round, each 0.1% better: no stall, but a plateau.
  std::vector<RoundRecord> h = {promoted(1, 1.0, 0.5, "memory_access")};
  double best = 0.5;
  for (int r = 2; r <= 6; ++r) {
    h.push_back(promoted(r, best, best * 0.999, "knobs"));
    best *= 0.999;
  }
  SupervisionSettings s;
  s.plateau_window = 5;
  s.plateau_gain = 0.01;
  const Verdict v = supervise(h, s);
  EXPECT_TRUE(v.has(SignalKind::plateau)) << v.json().dump(2);
  EXPECT_FALSE(v.has(SignalKind::stall));
  EXPECT_EQ(v.action, Action::change_direction);
  EXPECT_EQ(v.exclude_families, std::vector<std::string>{"knobs"});
  EXPECT_TRUE(mentions(v, "over the last 5 rounds"));
}

TEST(Trajectory, AskOnlyWhenSettingsAllowIt) {
  std::vector<RoundRecord> h = {promoted(1, 1.0, 0.5, "memory_access")};
  for (int r = 2; r <= 6; ++r) h.push_back(archived(r, 0.5, 0.5, "knobs"));
  SupervisionSettings s;
  EXPECT_EQ(supervise(h, s).action, Action::change_direction);
  s.ask = true;
  const Verdict v = supervise(h, s);
  EXPECT_EQ(v.action, Action::ask_person);
  EXPECT_TRUE(excludes_family(v, "knobs")) << "kept for when the person says go on";
  EXPECT_EQ(v.json()["action"], "ask");
}

TEST(Trajectory, TheVerdictIsDeterministic) {
  std::vector<RoundRecord> h = {promoted(1, 1.0, 0.5, "memory_access")};
  for (int r = 2; r <= 7; ++r) h.push_back(archived(r, 0.5, 0.7, r % 2 ? "knobs" : "tiling"));
  EXPECT_EQ(supervise(h).json().dump(), supervise(h).json().dump());
  EXPECT_EQ(supervise({}).action, Action::proceed);
}

}  // namespace
}  // namespace kh::control
