// Checker "topk_indexer" for the DSA top-k indexer (dsa_topk_indexer_*): its output is a
// SET of token indices per request, so positions and order mean nothing and ties may be
// broken either way; element-wise comparison is wrong for it.
//
// For each row b, with n = seq_len[b] and k = min(2048, n):
//  1. structure: exactly k indices, then -1 to the end; each index in [0, num_pages*64),
//     a token of request b (its page among block_table[b, :ceil(n/64)] at a column that,
//     with the offset, stays below n), and none repeated;
//  2. quality: the scores of the returned tokens, recomputed from the inputs in float64
//     (indexer_scores.h), sorted descending, must match the reference's sorted scores
//     position by position within  atol * M + rtol * |reference score|, where M is the
//     row's score magnitude (the largest sum_h |w_h| sum_d |q_hd k_d| among the
//     reference's tokens). Any tie-consistent choice passes; returning a token whose
//     score is below the true k-th score by more than the tolerance fails (the last
//     sorted position then differs by that much);
//  3. completeness: no token of the reference's selection that the candidate left out
//     may score more than the same tolerance above the candidate's lowest kept score.
//     Sorted lists alone miss a dropped high-ranked token replaced by the next one
//     below the cut: each sorted position then moves by one small gap only.
// Failures name the output, row, position, index and values. A selection equal to the
// reference's in every row (the same tokens, -1 padding at the same positions) passes
// at once: it is the reference's answer, and no score is recomputed.
#pragma once

#include "eval/check/output_checker.h"

namespace kh {

class TopkIndexerChecker final : public OutputChecker {
 public:
  [[nodiscard]] std::string_view name() const override { return "topk_indexer"; }
  [[nodiscard]] CheckVerdict check(const CheckContext& context) const override;
};

}  // namespace kh
