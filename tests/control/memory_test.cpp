// Memory: rounds remembered per definition and regime, read back after the archive is
// reopened, shared between loops, and idempotent when a resumed loop records again.
#include "control/memory.h"

#include <gtest/gtest.h>

#include "archive/hypothesis_outcomes.h"
#include "error/error.h"
#include "round_fixtures.h"
#include "support/temp_dir.h"

namespace kh::control {
namespace {

using test::make_round;

RoundRecord in_regime(RoundRecord r, std::string regime, std::string loop = "loop-1") {
  r.hypothesis.regime = std::move(regime);
  r.loop_id = std::move(loop);
  return r;
}

TEST(Memory, OutcomesFollowTheDecisionAndTheChecks) {
  EXPECT_EQ(outcome_of(make_round(1, "f", "d", 0.5, 1.0, archive::DecisionKind::promote)), Outcome::promoted);
  EXPECT_EQ(outcome_of(make_round(1, "f", "d", 1.0, 1.0, archive::DecisionKind::archive_only)),
            Outcome::archived);
  EXPECT_EQ(outcome_of(make_round(1, "f", "d", 1.0, 1.0, archive::DecisionKind::reject_restore)),
            Outcome::rejected);
  EXPECT_EQ(outcome_of(make_round(1, "f", "d", {}, 1.0, archive::DecisionKind::reject_restore, false)),
            Outcome::failed);
  const MemoryEntry e =
      memory_entry("rmsnorm_h128", make_round(1, "f", "d", 0.5, 1.0, archive::DecisionKind::promote));
  ASSERT_TRUE(e.speedup_delta.has_value());
  EXPECT_DOUBLE_EQ(*e.speedup_delta, 1.0);
}

TEST(Memory, RecordsAndQueriesPerRegimeAndSurvivesReopening) {
  kh::test::TempDir dir;
  {
    archive::Archive a = archive::Archive::open_or_create(dir.path());
    remember(a, "rmsnorm_h128",
             in_regime(make_round(1, "memory_access", "vectorise", 0.5, 1.0, archive::DecisionKind::promote),
                       "small"));
    remember(a, "rmsnorm_h128",
             in_regime(make_round(2, "tensor_cores", "use MMA", {}, 0.5,
                                  archive::DecisionKind::reject_restore, false),
                       "large"));
    remember(a, "softmax_h4096", make_round(1, "parallelism", "split", 0.9, 1.0));
  }
  archive::Archive a = archive::Archive::open_existing(dir.path());
  const Knowledge k = recall(a, "rmsnorm_h128");
  ASSERT_EQ(k.entries().size(), 2U);
  EXPECT_EQ(k.for_regime("small").size(), 1U);
  EXPECT_EQ(k.for_regime("large").front().outcome, Outcome::failed);
  EXPECT_EQ(k.for_regime("large").front().reason, "INCORRECT_NUMERICAL on 2 of 5 workloads");
  EXPECT_TRUE(k.failed({"large", "use MMA", "tensor_cores", "", ""}));
  EXPECT_FALSE(k.failed({"small", "use MMA", "tensor_cores", "", ""})) << "failed in another regime only";
  EXPECT_TRUE(k.tried({"small", "vectorise", "memory_access", "", ""}));
  EXPECT_FALSE(k.failed({"small", "vectorise", "memory_access", "", ""}));
  const std::vector<FamilyTally> small = k.tally("small");
  ASSERT_EQ(small.size(), 1U);
  EXPECT_EQ(small.front().promoted, 1U);
  EXPECT_EQ(k.json()["large"]["failed"].size(), 1U);
  EXPECT_EQ(k.json()["small"]["worked"][0]["family"], "memory_access");
  EXPECT_EQ(recall(a, "softmax_h4096").entries().size(), 1U) << "memory is per definition";
}

TEST(Memory, IsSharedAcrossLoopsAndRecordingARoundAgainAddsNothing) {
  kh::test::TempDir dir;
  archive::Archive a = archive::Archive::open_or_create(dir.path());
  const RoundRecord r = in_regime(make_round(3, "knobs", "tune", 0.9, 1.0), "small", "loop-a");
  remember(a, "d", r);
  remember(a, "d", r);  // a resumed loop re-recording round 3
  remember(a, "d", in_regime(make_round(1, "knobs", "tune", 1.1, 1.0), "small", "loop-b"));
  const Knowledge k = recall(a, "d");
  ASSERT_EQ(k.entries().size(), 2U);
  EXPECT_EQ(k.entries()[0].loop_id, "loop-a");
  EXPECT_EQ(k.entries()[1].loop_id, "loop-b");
}

// MoE's loop of 2026-12-06 (H100): the controller asked for "tune the declared knobs" (family
// knobs); the cli agent's candidate, latency_hiding, was promoted. What worked is the candidate's
// technique; what was asked stays the direction's, so the controller's idea still reads as tried.
TEST(Memory, WhatWorkedIsTalliedByTheFamilyTheCandidateClaimed) {
  kh::test::TempDir dir;
  RoundRecord r =
      make_round(1, "knobs", "tune the declared knobs", 1.2, 1.35, archive::DecisionKind::promote);
  r.candidate_family = "latency_hiding";
  EXPECT_EQ(r.technique_family(), "latency_hiding");
  {
    archive::Archive a = archive::Archive::open_or_create(dir.path());
    remember(a, "moe", r);
  }
  archive::Archive a = archive::Archive::open_existing(dir.path());
  const Knowledge k = recall(a, "moe");
  ASSERT_EQ(k.entries().size(), 1U);
  EXPECT_EQ(k.entries()[0].hypothesis.family, "knobs");
  EXPECT_EQ(k.entries()[0].candidate_family, "latency_hiding");
  const std::vector<FamilyTally> tally = k.tally("large");
  ASSERT_EQ(tally.size(), 1U);
  EXPECT_EQ(tally[0].family, "latency_hiding");
  EXPECT_EQ(tally[0].promoted, 1U);
  EXPECT_EQ(k.json()["large"]["worked"][0]["family"], "latency_hiding");
  EXPECT_TRUE(k.tried({"large", "tune the declared knobs", "knobs", "", ""}));
  // A candidate that claims no family speaks for the direction's.
  r.candidate_family.clear();
  EXPECT_EQ(memory_entry("moe", r).candidate_family, "");
  EXPECT_EQ(technique_family(memory_entry("moe", r)), "knobs");
}

TEST(Memory, AnUnknownOutcomeIsRefused) {
  kh::test::TempDir dir;
  archive::Archive a = archive::Archive::open_or_create(dir.path());
  archive::HypothesisOutcome row;
  row.definition = "d";
  row.outcome = "great";
  EXPECT_THROW(archive::record_hypothesis_outcome(a, row), Error);
}

}  // namespace
}  // namespace kh::control
