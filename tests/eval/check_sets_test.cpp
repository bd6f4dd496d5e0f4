// check_sets, the request that checks several seeds at once (the reference's outputs for
// the re-checked timed sets): each seed must get exactly what its own check would give,
// and a call that fails must fail the request under its seed's name. Real builds and a
// real CPU worker.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "cpu_worker_fixture.h"
#include "end_to_end_fixture.h"

namespace kh {
namespace {

const std::filesystem::path kSolutions =
    std::filesystem::path(KHARNESS_SOURCE_DIR) / "tests/eval/solutions/rmsnorm_h128";

class CheckSets : public test::CpuWorkerTest {};

TEST_F(CheckSets, EachSeedGetsWhatItsOwnCheckGets) {
  const std::unique_ptr<MeasurementClient> worker = worker_with(ops_->reference("rmsnorm_h128", "cpu"));
  ASSERT_NE(worker, nullptr);
  const Workload w = ops_->workloads("rmsnorm_h128", false).back();
  const std::vector<std::uint64_t> seeds = {11, 12, 13};
  const Outcome<std::vector<CheckResult>> together =
      worker->check_sets(op_->definition, w, op_->dir, seeds, 0xFF);
  ASSERT_TRUE(together.value) << together.failure->message;
  ASSERT_EQ(together.value->size(), seeds.size());
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    SCOPED_TRACE("seed " + std::to_string(seeds[i]));
    const Outcome<CheckResult> alone = worker->check(op_->definition, w, op_->dir, seeds[i], 0xFF);
    ASSERT_TRUE(alone.value) << alone.failure->message;
    const CheckResult& a = *alone.value;
    const CheckResult& b = together.value->at(i);
    EXPECT_EQ(b.input_hashes_before, a.input_hashes_before);
    EXPECT_EQ(b.input_hashes_after, a.input_hashes_after);
    ASSERT_EQ(b.outputs.size(), a.outputs.size());
    for (std::size_t k = 0; k < a.outputs.size(); ++k) {
      ASSERT_EQ(b.outputs[k].bytes().size(), a.outputs[k].bytes().size());
      EXPECT_TRUE(
          std::equal(a.outputs[k].bytes().begin(), a.outputs[k].bytes().end(), b.outputs[k].bytes().begin()))
          << "output " << k << " differs from the seed's own check";
    }
  }
  // Each seed's slice is its own: neighbouring seeds' inputs (and so outputs) differ.
  EXPECT_NE(together.value->at(0).input_hashes_before, together.value->at(1).input_hashes_before);
}

TEST_F(CheckSets, AFailingCallFailsTheRequestUnderItsSeed) {
  const std::unique_ptr<MeasurementClient> worker =
      worker_with(test::gallery_solution(kSolutions, "throws.cpp", "cpp", {"rmsnorm_common.h"}));
  ASSERT_NE(worker, nullptr);
  const Workload w = ops_->workloads("rmsnorm_h128", false).front();
  const Outcome<std::vector<CheckResult>> r =
      worker->check_sets(op_->definition, w, op_->dir, {21, 22}, 0xFF);
  ASSERT_FALSE(r.value);
  EXPECT_EQ(r.failure->kind, CallFailure::Kind::candidate_error);
  EXPECT_NE(r.failure->message.find("seed 21"), std::string::npos) << r.failure->message;
  EXPECT_NE(r.failure->message.find("tile size does not divide 128"), std::string::npos)
      << r.failure->message;
  // The worker serves on: a single check after the failed batch still answers.
  const Outcome<CheckResult> again = worker->check(op_->definition, w, op_->dir, 23, 0xFF);
  EXPECT_FALSE(again.value);
  EXPECT_EQ(again.failure->kind, CallFailure::Kind::candidate_error);
}

// A candidate's correctness trials alternate poison bytes; asked together, each seed's
// outputs are poisoned with its own, so a solution that writes nothing shows each.
TEST_F(CheckSets, EachSeedIsPoisonedWithItsOwnByte) {
  const std::unique_ptr<MeasurementClient> worker =
      worker_with(test::gallery_solution(kSolutions, "unwritten.cpp", "cpp", {"rmsnorm_common.h"}));
  ASSERT_NE(worker, nullptr);
  const Workload w = ops_->workloads("rmsnorm_h128", false).front();
  const std::vector<std::uint8_t> poisons = {0xFF, 0xA5, 0x5A};
  const Outcome<std::vector<CheckResult>> r =
      worker->check_sets(op_->definition, w, op_->dir, {31, 32, 33}, poisons);
  ASSERT_TRUE(r.value) << r.failure->message;
  ASSERT_EQ(r.value->size(), poisons.size());
  for (std::size_t i = 0; i < poisons.size(); ++i) {
    for (const HostTensor& out : r.value->at(i).outputs) {
      ASSERT_FALSE(out.bytes().empty());
      EXPECT_TRUE(std::ranges::all_of(out.bytes(), [&](std::byte b) { return b == std::byte{poisons[i]}; }))
          << "seed " << i << " holds bytes other than its poison " << int(poisons[i]);
    }
  }
  // One byte short: the worker refuses the request rather than guess the missing one.
  const Outcome<std::vector<CheckResult>> short_one =
      worker->check_sets(op_->definition, w, op_->dir, {31, 32, 33}, std::vector<std::uint8_t>{0xFF, 0xA5});
  ASSERT_FALSE(short_one.value);
  EXPECT_NE(short_one.failure->message.find("2 poison bytes for 3 seeds"), std::string::npos)
      << short_one.failure->message;
}

}  // namespace
}  // namespace kh
