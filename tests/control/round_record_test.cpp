// Round records travel through the decision log: written into a decision's evidence,
// read back in round order, and a malformed one is named field by field.
#include "control/round_record.h"

#include <gtest/gtest.h>

#include "error/error.h"
#include "round_fixtures.h"

namespace kh::control {
namespace {

using test::make_round;

TEST(RoundRecord, RoundTripsThroughDecisionEvidenceInRoundOrder) {
  RoundRecord failed = make_round(2, "tensor_cores", "use MMA", std::nullopt, 0.5,
                                  archive::DecisionKind::reject_restore, false, "abc");
  failed.stage = Stage::exploit;
  failed.hypothesis.directive = "keep registers under 128";
  const RoundRecord won =
      make_round(1, "memory_access", "vectorise", 0.5, 1.0, archive::DecisionKind::promote);
  std::vector<archive::Decision> decisions(3);
  decisions[0].evidence = {{"round_record", round_record_json(failed)}};
  decisions[1].evidence = {{"note", "a decision without a record is skipped"}};
  decisions[2].evidence = {{"round_record", round_record_json(won)}};
  const std::vector<RoundRecord> back = round_records(decisions);
  ASSERT_EQ(back.size(), 2U);
  EXPECT_EQ(back[0].round, 1);
  EXPECT_EQ(back[0].decision, archive::DecisionKind::promote);
  ASSERT_TRUE(back[0].speedup().has_value());
  EXPECT_DOUBLE_EQ(*back[0].speedup(), 2.0);
  EXPECT_EQ(back[0].retained_ms(), 0.5);
  EXPECT_EQ(back[1].stage, Stage::exploit);
  EXPECT_FALSE(back[1].passed);
  EXPECT_FALSE(back[1].candidate_ms.has_value());
  EXPECT_EQ(back[1].retained_ms(), 0.5) << "not promoted: the best stays";
  EXPECT_EQ(back[1].content_hash, "abc");
  EXPECT_EQ(back[1].hypothesis.directive, "keep registers under 128");
  EXPECT_EQ(back[1].failure, failed.failure);
  EXPECT_EQ(round_record_json(back[1]).dump(), round_record_json(failed).dump());
  // The candidate's claimed family travels when there is one; records without it read as before.
  EXPECT_FALSE(round_record_json(won).contains("candidate_family"));
  RoundRecord claimed = won;
  claimed.candidate_family = "latency_hiding";
  EXPECT_EQ(round_record_from_json(round_record_json(claimed)).candidate_family, "latency_hiding");
  EXPECT_EQ(round_record_from_json(round_record_json(claimed)).hypothesis.family, "memory_access");
}

TEST(RoundRecord, AMalformedRecordNamesItsField) {
  nlohmann::ordered_json j = round_record_json(make_round(1, "f", "d", 1.0, 1.0));
  j["decision"] = "maybe";
  try {
    (void)round_record_from_json(j);
    FAIL() << "accepted a bad decision";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().field, "decision");
  }
  j.erase("decision");
  EXPECT_THROW((void)round_record_from_json(j), Error);
}

}  // namespace
}  // namespace kh::control
