// The loop's own record as the report lists it, from decision evidence of every age: the
// round's candidate found by content id, the family it claimed, a damaged record still a row.
#include "report/round_rows.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace kh::report {
namespace {

DecisionEntry decision(const nlohmann::ordered_json& evidence, std::string kind = "promote") {
  DecisionEntry d;
  d.loop_id = "loop-1";
  d.round = 3;
  d.kind = std::move(kind);
  d.evidence_json = evidence.dump();
  return d;
}

// As MoE's loop of 2026-12-06 recorded it: asked for knobs, a latency_hiding candidate won; one
// answer refused, one candidate caught as a reward hack.
nlohmann::ordered_json moe_evidence() {
  const nlohmann::ordered_json hack_sweep = {{"workloads", {{{"status", "REWARD_HACK"}}}}};
  const nlohmann::ordered_json ok_sweep = {{"workloads", {{{"status", "PASSED"}}}}};
  return {{"reason", "fp8ws_tma_scales is faster than the retained best"},
          {"seconds", 172.3},
          {"candidates",
           {{{"content_id", "aaa"}, {"name", "moe_cheat"}, {"family", "memory_access"}, {"gate", hack_sweep}},
            {{"content_id", "5b63"},
             {"name", "moe_fp8ws_tma_scales"},
             {"family", "latency_hiding"},
             {"gate", ok_sweep}}}},
          {"rejected_answers", {{{"reason", "no entry point"}}}},
          {"round_record",
           {{"candidate", "5b63"},
            {"hypothesis", {{"family", "knobs"}, {"direction", "tune the declared knobs"}}},
            {"speedup", 1.128},
            {"objective", "mean"}}}};
}

TEST(RoundRows, ARoundNamesItsCandidateTheFamilyItClaimedAndItsCandidatesByStatus) {
  const RoundRow row = round_row(decision(moe_evidence()));
  EXPECT_EQ(row.loop_id, "loop-1");
  EXPECT_EQ(row.round, 3);
  EXPECT_EQ(row.decision, "promote");
  EXPECT_EQ(row.candidate, "moe_fp8ws_tma_scales");
  EXPECT_EQ(row.family, "latency_hiding") << "the candidate's claim, not the direction's knobs";
  ASSERT_TRUE(row.speedup.has_value());
  EXPECT_DOUBLE_EQ(*row.speedup, 1.128);
  EXPECT_EQ(row.objective, "mean");
  EXPECT_EQ(row.candidates.passed, 1);
  EXPECT_EQ(row.candidates.reward_hack, 1);
  EXPECT_EQ(row.candidates.refused, 1);
  EXPECT_EQ(candidates_text(row.candidates), "3 (1 passed, 1 reward hack, 1 refused)");
  EXPECT_DOUBLE_EQ(row.seconds, 172.3);
  EXPECT_EQ(row.reason, "fp8ws_tma_scales is faster than the retained best");
}

TEST(RoundRows, OlderAndDamagedRecordsStillReport) {
  nlohmann::ordered_json old = moe_evidence();
  old["round_record"].erase("objective");  // written before the objective existed: geomean
  old["candidates"][1].erase("family");
  const RoundRow row = round_row(decision(old, "reject_restore"));
  EXPECT_EQ(row.objective, "geomean");
  EXPECT_EQ(row.family, "knobs") << "no claim: the direction's family";
  EXPECT_EQ(row.decision, "reject_restore");

  DecisionEntry damaged = decision(moe_evidence());
  damaged.evidence_json = "{not json";
  const RoundRow none = round_row(damaged);
  EXPECT_EQ(none.candidate, "");
  EXPECT_FALSE(none.speedup.has_value());
  EXPECT_EQ(candidates_text(none.candidates), "0");
}

}  // namespace
}  // namespace kh::report
