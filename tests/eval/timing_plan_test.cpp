// The timing plan (eval/timing_plan.h): which output slots a fixed-count loop keeps, in
// the worker's order, and which input sets a pick seed re-checks. The prediction is held
// against a real CPU worker's time replies: the reference's outputs for the re-checked
// sets are computed before the loop on that prediction alone.
#include "eval/timing_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cpu_worker_fixture.h"

namespace kh {
namespace {

TEST(TimingPlanShape, OneSlotPerTimedCallKeepsEveryTimedCallsSet) {
  // The official protocol with the budget to spare: 10 warm-ups, 50 timed calls, 50
  // slots, 60 sets. Slot s is written last by call 50 + s for s < 10, else by call s;
  // timed call c (from 10) uses set (c - 10) % 60, the warm-ups set 0.
  const std::vector<std::size_t> sets = kept_slot_sets({10, 50, 50, 60});
  ASSERT_EQ(sets.size(), 50u);
  for (std::size_t s = 0; s < 50; ++s) EXPECT_EQ(sets[s], s < 10 ? 40 + s : s - 10) << "slot " << s;
}

TEST(TimingPlanShape, FewerSetsAndSlotsThanCalls) {
  // 3 warm-ups, 7 timed calls (3..9) on sets 0, 1, 2, 0, 1, 2, 0; 4 slots: slot 0 <- call
  // 8, 1 <- 9, 2 <- 6, 3 <- 7.
  EXPECT_EQ(kept_slot_sets({3, 7, 4, 3}), (std::vector<std::size_t>{2, 0, 0, 1}));
  // More slots than calls: only the slots a timed call wrote are kept.
  EXPECT_EQ(kept_slot_sets({2, 3, 8, 10}), (std::vector<std::size_t>{0, 1, 2}));
  // A slot whose last writer was a warm-up is not kept.
  EXPECT_EQ(kept_slot_sets({5, 1, 3, 10}), (std::vector<std::size_t>{0}));
  // The warm-ups call set 0 alone; the timed calls go round from set 0, so the first timed
  // call is on the warm set and no set's first call is the loop's first timed call.
  EXPECT_EQ(input_set_of_call(0, 3, 3), 0u);
  EXPECT_EQ(input_set_of_call(2, 3, 3), 0u);
  EXPECT_EQ(input_set_of_call(3, 3, 3), 0u);
  EXPECT_EQ(input_set_of_call(4, 3, 3), 1u);
  EXPECT_EQ(input_set_of_call(6, 3, 3), 0u);
  EXPECT_EQ(input_set_of_call(0, 0, 3), 0u);
}

TEST(TimingPlanShape, RecheckedSetsFollowThePickSeedAndRepeatNone) {
  const LoopShape shape{3, 7, 4, 3};
  TrialPlan a{{}, 1};
  TrialPlan b{{}, 2};
  const std::vector<std::size_t> ra = rechecked_sets(shape, a, 4);
  EXPECT_EQ(rechecked_sets(shape, a, 4), ra) << "a seed draws the same sets every time";
  // Kept sets are {2, 0, 0, 1}: all four slots re-checked cover each set once.
  std::vector<std::size_t> sorted = ra;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_LE(rechecked_sets(shape, b, 1).size(), 1u);
  EXPECT_TRUE(rechecked_sets(shape, b, 0).empty());
}

class TimingPlanWorker : public test::CpuWorkerTest {};

TEST_F(TimingPlanWorker, TheWorkersKeptSlotsAreTheForeseenOnes) {
  const std::unique_ptr<MeasurementClient> worker = worker_with(ops_->reference("rmsnorm_h128", "cpu"));
  ASSERT_NE(worker, nullptr);
  const Workload w = ops_->workloads("rmsnorm_h128", false).front();
  for (const LoopShape shape : {LoopShape{3, 7, 4, 3}, LoopShape{2, 3, 8, 10}, LoopShape{4, 12, 12, 16}}) {
    SCOPED_TRACE(::testing::Message() << "warmup " << shape.warmup << ", iterations " << shape.iterations
                                      << ", slots " << shape.slots << ", sets " << shape.sets);
    std::vector<std::uint64_t> seeds;
    for (std::size_t k = 0; k < shape.sets; ++k) seeds.push_back(100 + k);
    nlohmann::ordered_json protocol = {{"protocol", "official"},         {"warmup", shape.warmup},
                                       {"iterations", shape.iterations}, {"timing_trials", 1},
                                       {"recheck", shape.slots},         {"poison", 0xFF}};
    const Outcome<TimeResult> r = worker->time(op_->definition, w, op_->dir, seeds, protocol);
    ASSERT_TRUE(r.value) << r.failure->message;
    const std::vector<std::size_t> foreseen = kept_slot_sets(shape);
    ASSERT_EQ(r.value->slots.size(), foreseen.size());
    for (std::size_t s = 0; s < foreseen.size(); ++s) {
      EXPECT_EQ(r.value->slots[s].slot, static_cast<int>(s));
      EXPECT_EQ(static_cast<std::size_t>(r.value->slots[s].input_set), foreseen[s]) << "slot " << s;
    }
  }
}

}  // namespace
}  // namespace kh
