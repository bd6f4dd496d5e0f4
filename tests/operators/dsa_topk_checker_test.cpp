// The "topk_indexer" checker on real outputs: the CPU reference's and baseline's on
// generated inputs pass (in any order); each kind of wrong output, made by editing a
// real one, fails with a reason that names the row and position.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "dsa_topk_fixture.h"
#include "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/harness/indexer_scores.h"

namespace kh::dsa_topk_test {
namespace {

// Three requests over a pool that holds them all (rows are disjoint): one of max_num_pages
// pages (> 2048 tokens), one shorter than 2048 (padded), one in between.
class IndexerCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    inputs_ = generated(3, 40, 300, 20260317);
    reference_ = run_reference(inputs_);
    const auto lens = inputs_[kSeqLens].as<std::int32_t>();
    for (std::int64_t b = 0; b < 3; ++b) {
      if (lens[b] > kTopK && long_row_ < 0) long_row_ = b;
      if (lens[b] < kTopK && short_row_ < 0) short_row_ = b;
    }
    ASSERT_GE(long_row_, 0);
    ASSERT_GE(short_row_, 0);
  }

  std::int32_t& at(HostTensor& out, std::int64_t b, std::int64_t i) {
    return out.as<std::int32_t>()[b * kTopK + i];
  }
  std::int64_t seq_len(std::int64_t b) { return inputs_[kSeqLens].as<std::int32_t>()[b]; }

  CheckVerdict expect_rejected(const HostTensor& wrong, const std::string& row_and_position,
                               const std::string& why) {
    const CheckVerdict v = check(inputs_, reference_, wrong);
    EXPECT_FALSE(v.passed);
    EXPECT_NE(v.reason.find("topk_indices"), std::string::npos) << v.reason;
    EXPECT_NE(v.reason.find(row_and_position), std::string::npos) << v.reason;
    EXPECT_NE(v.reason.find(why), std::string::npos) << v.reason;
    return v;
  }

  std::vector<HostTensor> inputs_;
  HostTensor reference_;
  std::int64_t long_row_ = -1;
  std::int64_t short_row_ = -1;
};

TEST_F(IndexerCheckerTest, AcceptsTheReferenceInAnyOrderAndTheBaseline) {
  const CheckVerdict self = check(inputs_, reference_, reference_);
  EXPECT_TRUE(self.passed) << self.reason;
  EXPECT_EQ(self.max_absolute_error, 0.0);
  HostTensor reversed = reference_.clone();
  for (std::int64_t b = 0; b < 3; ++b) {
    const std::int64_t keep = std::min<std::int64_t>(kTopK, seq_len(b));
    std::reverse(&at(reversed, b, 0), &at(reversed, b, 0) + keep);
  }
  EXPECT_NE(reversed.as<std::int32_t>()[0], reference_.as<std::int32_t>()[0]);
  const CheckVerdict order = check(inputs_, reference_, reversed);
  EXPECT_TRUE(order.passed) << order.reason;
  // The baseline sums in another order; its selection must sit far inside the tolerance.
  const CheckVerdict base = check(inputs_, reference_, run_baseline(inputs_));
  EXPECT_TRUE(base.passed) << base.reason;
  EXPECT_LT(base.extra["topk_indices"]["max_error_over_tolerance"].get<double>(), 0.1) << base.extra.dump();
}

// The reference's own selection, in any order, is its answer: the checker does not
// regenerate the inputs for it (for the contest's workloads, tens of MB on the host for
// every check). One token swapped for another needs the scores, so the inputs.
TEST_F(IndexerCheckerTest, TheReferencesSelectionNeedsNoInputsAnotherDoes) {
  HostTensor reversed = reference_.clone();
  for (std::int64_t b = 0; b < 3; ++b) {
    const std::int64_t keep = std::min<std::int64_t>(kTopK, seq_len(b));
    std::reverse(&at(reversed, b, 0), &at(reversed, b, 0) + keep);
  }
  int reads = 0;
  auto checked = [&](const HostTensor& candidate) {
    std::vector<HostTensor> ref, cand;
    ref.push_back(reference_.clone());
    cand.push_back(candidate.clone());
    const CheckContext ctx{indexer_op().definition, ref, cand, indexer_tolerance(),
                           [&]() -> const std::vector<HostTensor>& {
                             ++reads;
                             return inputs_;
                           }};
    return make_output_checker(indexer_op().checker)->check(ctx);
  };
  const CheckVerdict same = checked(reversed);
  EXPECT_TRUE(same.passed) << same.reason;
  EXPECT_EQ(reads, 0);
  EXPECT_TRUE(same.extra["topk_indices"].value("same_selection_as_reference", false)) << same.extra.dump();
  // A duplicate in place of one token: no longer the reference's set, so checked in full.
  HostTensor duplicate = reference_.clone();
  at(duplicate, long_row_, 1) = at(duplicate, long_row_, 0);
  const CheckVerdict other = checked(duplicate);
  EXPECT_FALSE(other.passed);
  EXPECT_EQ(reads, 1);
  EXPECT_NE(other.reason.find("duplicate"), std::string::npos) << other.reason;
}

TEST_F(IndexerCheckerTest, RejectsADuplicate) {
  HostTensor wrong = reference_.clone();
  at(wrong, long_row_, 5) = at(wrong, long_row_, 4);
  expect_rejected(wrong, "row " + std::to_string(long_row_) + ", position 5",
                  "duplicate (already at position 4)");
}

TEST_F(IndexerCheckerTest, RejectsOutOfRangeIndices) {
  HostTensor wrong = reference_.clone();
  at(wrong, long_row_, 7) = 300 * 64;  // one past the pool
  expect_rejected(wrong, "row " + std::to_string(long_row_) + ", position 7", "out of range");
  HostTensor garbage = reference_.clone();
  at(garbage, short_row_, 0) = static_cast<std::int32_t>(0xA5A5A5A5u);  // what the poison leaves
  expect_rejected(garbage, "row " + std::to_string(short_row_) + ", position 0", "out of range");
}

TEST_F(IndexerCheckerTest, RejectsATokenOfAnotherRequest) {
  HostTensor wrong = reference_.clone();
  at(wrong, long_row_, 3) = at(reference_, short_row_, 0);  // rows are disjoint here
  expect_rejected(wrong, "row " + std::to_string(long_row_) + ", position 3",
                  "is not a token of this request");
}

TEST_F(IndexerCheckerTest, RejectsAnOffsetPastTheSequence) {
  // The short row owns its last page only up to seq_len % 64; offset 63 lies past it
  // unless the page is full.
  const std::int64_t n = seq_len(short_row_);
  if (n % 64 == 0) GTEST_SKIP() << "the short request fills its last page";
  const std::int32_t last_page = inputs_[kTable].as<std::int32_t>()[short_row_ * 40 + (n - 1) / 64];
  HostTensor wrong = reference_.clone();
  at(wrong, short_row_, 0) = last_page * 64 + 63;
  expect_rejected(wrong, "row " + std::to_string(short_row_) + ", position 0",
                  "is not a token of this request");
}

TEST_F(IndexerCheckerTest, RejectsMissingAndEarlyPadding) {
  const std::int64_t n = seq_len(short_row_);
  HostTensor missing = reference_.clone();
  at(missing, short_row_, n) = at(reference_, long_row_, 0);  // an entry where -1 belongs
  expect_rejected(missing, "row " + std::to_string(short_row_) + ", position " + std::to_string(n),
                  "where -1 padding is required");
  HostTensor early = reference_.clone();
  at(early, short_row_, n - 1) = -1;
  expect_rejected(early, "row " + std::to_string(short_row_) + ", position " + std::to_string(n - 1),
                  "is -1 padding but the row needs");
  HostTensor full_row_cut = reference_.clone();
  at(full_row_cut, long_row_, kTopK - 1) = -1;
  expect_rejected(full_row_cut, "position 2047", "is -1 padding");
}

// The request's best token swapped for its worst one (a real token of the request, no
// duplicate, so only the recomputed scores can tell).
TEST_F(IndexerCheckerTest, RejectsALowerScoreSubstitution) {
  const IndexerScores scores(inputs_);
  const RequestTokens own = scores.tokens(long_row_);
  const std::set<std::int32_t> chosen(&at(reference_, long_row_, 0), &at(reference_, long_row_, 0) + kTopK);
  const auto table = inputs_[kTable].as<std::int32_t>();
  std::int64_t worst = -1;
  double worst_score = INFINITY;
  for (std::int64_t p = 0; p < seq_len(long_row_); ++p) {
    const std::int64_t token = table[long_row_ * 40 + p / 64] * 64 + p % 64;
    if (chosen.count(static_cast<std::int32_t>(token)) != 0) continue;
    const double s = scores.score(long_row_, token).value;
    if (s < worst_score) {
      worst_score = s;
      worst = token;
    }
  }
  ASSERT_GE(worst, 0);
  ASSERT_EQ(own.count(worst), 1);
  HostTensor wrong = reference_.clone();
  at(wrong, long_row_, 0) = static_cast<std::int32_t>(worst);  // the reference lists its best first
  const CheckVerdict v = expect_rejected(wrong, "row " + std::to_string(long_row_), "not the request's best");
  EXPECT_NE(v.reason.find("index " + std::to_string(worst)), std::string::npos) << v.reason;
  EXPECT_GT(v.extra["topk_indices"]["max_error_over_tolerance"].get<double>(), 1.0);
}

// The 101st best token dropped for the best one below the cut: every sorted position
// moves by one small gap only, so only the completeness rule sees it.
TEST_F(IndexerCheckerTest, RejectsAMissedHighRankedToken) {
  const IndexerScores scores(inputs_);
  const std::set<std::int32_t> chosen(&at(reference_, long_row_, 0), &at(reference_, long_row_, 0) + kTopK);
  const auto table = inputs_[kTable].as<std::int32_t>();
  std::int64_t next = -1;
  double next_score = -INFINITY;
  for (std::int64_t p = 0; p < seq_len(long_row_); ++p) {
    const std::int64_t token = table[long_row_ * 40 + p / 64] * 64 + p % 64;
    const double s = scores.score(long_row_, token).value;
    if (chosen.count(static_cast<std::int32_t>(token)) == 0 && s > next_score) {
      next_score = s;
      next = token;
    }
  }
  HostTensor wrong = reference_.clone();
  const std::int32_t dropped = at(wrong, long_row_, 100);  // the reference lists by score
  at(wrong, long_row_, 100) = static_cast<std::int32_t>(next);
  const CheckVerdict v = expect_rejected(wrong, "row " + std::to_string(long_row_), "is left out");
  EXPECT_NE(v.reason.find("index " + std::to_string(dropped)), std::string::npos) << v.reason;
}

// A token just below the true k-th one is a wrong choice the tolerance must still see
// once the gap exceeds it: with atol = 0 every score difference counts.
TEST_F(IndexerCheckerTest, ExactToleranceSeesTheNextBestToken) {
  const IndexerScores scores(inputs_);
  const std::set<std::int32_t> chosen(&at(reference_, long_row_, 0), &at(reference_, long_row_, 0) + kTopK);
  const auto table = inputs_[kTable].as<std::int32_t>();
  std::int64_t next = -1;
  double next_score = -INFINITY;
  for (std::int64_t p = 0; p < seq_len(long_row_); ++p) {
    const std::int64_t token = table[long_row_ * 40 + p / 64] * 64 + p % 64;
    const double s = scores.score(long_row_, token).value;
    if (chosen.count(static_cast<std::int32_t>(token)) == 0 && s > next_score) {
      next_score = s;
      next = token;
    }
  }
  HostTensor wrong = reference_.clone();
  at(wrong, long_row_, kTopK - 1) = static_cast<std::int32_t>(next);  // the reference's k-th
  EXPECT_TRUE(check(inputs_, reference_, wrong).passed) << "within the operator's tolerance";
  const CheckVerdict exact = check(inputs_, reference_, wrong, Tolerance{0.0, 0.0, 1.0});
  EXPECT_FALSE(exact.passed);
  EXPECT_NE(exact.reason.find("#2047"), std::string::npos) << exact.reason;
}

}  // namespace
}  // namespace kh::dsa_topk_test
