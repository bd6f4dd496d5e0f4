#include "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/harness/topk_indexer_checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/harness/indexer_scores.h"

namespace kh {

namespace {

constexpr std::int64_t kTopK = 2048;
constexpr std::int64_t kPageTokens = 64;

// A row's indices once its structure is valid, or why it is not.
struct RowSelection {
  std::vector<std::int64_t> tokens;
  std::string error;
};

std::string describe_token(std::int64_t token) {
  return fmt::format("index {} (page {}, offset {})", token, token / kPageTokens, token % kPageTokens);
}

RowSelection read_row(std::span<const std::int32_t> row, const RequestTokens& own, std::int64_t seq_len,
                      std::int64_t token_count, const std::string& where) {
  RowSelection s;
  const std::int64_t keep = std::min(kTopK, seq_len);
  std::unordered_map<std::int64_t, std::pair<int, std::int64_t>> seen;  // token -> (times, first position)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(row.size()); ++i) {
    const std::int64_t v = row[i];
    if (i >= keep) {
      if (v == -1) continue;
      s.error = fmt::format(
          "{}, position {}: holds {} where -1 padding is required (seq_len {} gives exactly {} "
          "indices)",
          where, i, v, seq_len, keep);
      return s;
    }
    if (v == -1) {
      s.error = fmt::format(
          "{}, position {}: is -1 padding but the row needs min(2048, seq_len {}) = {} indices first", where,
          i, seq_len, keep);
      return s;
    }
    if (v < 0 || v >= token_count) {
      s.error = fmt::format("{}, position {}: index {} is out of range [0, num_pages * 64 = {})", where, i, v,
                            token_count);
      return s;
    }
    const int owned = own.count(v);
    if (owned == 0) {
      s.error = fmt::format(
          "{}, position {}: {} is not a token of this request (its page is not in the first "
          "ceil(seq_len / 64) block-table entries, or the offset lies past seq_len {})",
          where, i, describe_token(v), seq_len);
      return s;
    }
    auto [it, fresh] = seen.try_emplace(v, 0, i);
    if (++it->second.first > owned) {
      s.error = fmt::format("{}, position {}: {} is a duplicate (already at position {})", where, i,
                            describe_token(v), it->second.second);
      return s;
    }
    s.tokens.push_back(v);
  }
  return s;
}

struct ScoredToken {
  double score;
  std::int64_t token;
};

// Scores of `tokens` sorted descending, memoised in `cache` (the two selections mostly agree).
std::vector<ScoredToken> sorted_scores(const IndexerScores& scores, std::int64_t b,
                                       const std::vector<std::int64_t>& tokens,
                                       std::unordered_map<std::int64_t, IndexerScores::Score>& cache) {
  std::vector<ScoredToken> out;
  out.reserve(tokens.size());
  for (std::int64_t t : tokens) {
    auto it = cache.find(t);
    if (it == cache.end()) it = cache.emplace(t, scores.score(b, t)).first;
    out.push_back({it->second.value, t});
  }
  std::sort(out.begin(), out.end(),
            [](const ScoredToken& x, const ScoredToken& y) { return x.score > y.score; });
  return out;
}

// The worst sorted position of one row: how far past its tolerance it lies.
struct RowComparison {
  double worst_ratio = 0;  // |c - r| / allowed; > 1 fails
  double max_abs_error = 0;
  std::string detail;
};

RowComparison compare_row(const std::vector<ScoredToken>& cand, const std::vector<ScoredToken>& ref,
                          double magnitude, const Tolerance& tol) {
  RowComparison c;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double diff = std::fabs(cand[i].score - ref[i].score);
    const double allowed = tol.atol * magnitude + tol.rtol * std::fabs(ref[i].score);
    const double ratio = diff == 0 ? 0 : (allowed > 0 ? diff / allowed : INFINITY);
    c.max_abs_error = std::max(c.max_abs_error, diff);
    if (ratio > c.worst_ratio) {
      c.worst_ratio = ratio;
      c.detail = fmt::format(
          "sorted score #{} of the selection is {:.9g} (index {}) where the true top-k's is {:.9g} (index "
          "{}): "
          "|difference| {:.3g} exceeds atol {} * magnitude {:.6g} + rtol {} * |score| = {:.3g}",
          i, cand[i].score, cand[i].token, ref[i].score, ref[i].token, diff, tol.atol, magnitude, tol.rtol,
          allowed);
    }
  }
  return c;
}

// Sorted scores close position by position still let a selection drop one of the best
// tokens for the next one below the cut (every position then moves by only a small
// gap). So, as the definition of a top-k: no token the reference chose and the
// candidate left out may score more than the tolerance above the candidate's lowest.
RowComparison compare_left_out(const std::vector<ScoredToken>& cand, const std::vector<ScoredToken>& ref,
                               double magnitude, const Tolerance& tol) {
  RowComparison c;
  if (cand.empty()) return c;
  const ScoredToken& lowest = cand.back();
  std::unordered_set<std::int64_t> kept;
  for (const ScoredToken& t : cand) kept.insert(t.token);
  for (const ScoredToken& t : ref) {
    if (kept.count(t.token) != 0 || t.score <= lowest.score) continue;
    const double excess = t.score - lowest.score;
    const double allowed = tol.atol * magnitude + tol.rtol * std::fabs(t.score);
    const double ratio = allowed > 0 ? excess / allowed : INFINITY;
    if (ratio > c.worst_ratio) {
      c.worst_ratio = ratio;
      c.detail = fmt::format(
          "index {} (score {:.9g}) of the true top-k is left out while the selection keeps index {} scoring "
          "{:.9g}, {:.3g} lower, more than atol {} * magnitude {:.6g} + rtol {} * |score| = {:.3g}",
          t.token, t.score, lowest.token, lowest.score, excess, tol.atol, magnitude, tol.rtol, allowed);
    }
  }
  return c;
}

// One request: its structure (candidate, then the reference's), then its scores.
struct RowOutcome {
  std::string error;  // a structural failure; the comparison is then empty
  RowComparison comparison;
  double magnitude = 0;
};

RowOutcome check_row(const IndexerScores& scores, std::int64_t b, std::span<const std::int32_t> cand,
                     std::span<const std::int32_t> ref, const Tolerance& tol, const std::string& where) {
  RowOutcome out;
  const std::int64_t seq_len = scores.seq_len(b);
  const RequestTokens own = scores.tokens(b);
  const std::int64_t token_count = scores.num_pages() * kPageTokens;
  const RowSelection c = read_row(cand, own, seq_len, token_count, where);
  const RowSelection r = read_row(ref, own, seq_len, token_count, "the REFERENCE's " + where);
  out.error = !c.error.empty() ? c.error : r.error;
  if (!out.error.empty()) return out;
  std::unordered_map<std::int64_t, IndexerScores::Score> cache;
  const std::vector<ScoredToken> rs = sorted_scores(scores, b, r.tokens, cache);
  for (const auto& [token, s] : cache) out.magnitude = std::max(out.magnitude, s.magnitude);
  const std::vector<ScoredToken> cs = sorted_scores(scores, b, c.tokens, cache);
  out.comparison = compare_row(cs, rs, out.magnitude, tol);
  if (out.comparison.worst_ratio <= 1) {
    RowComparison left_out = compare_left_out(cs, rs, out.magnitude, tol);
    if (left_out.worst_ratio > out.comparison.worst_ratio) {
      left_out.max_abs_error = out.comparison.max_abs_error;
      out.comparison = std::move(left_out);
    }
  }
  return out;
}

// True when every row holds the reference's selection: the same tokens as a multiset,
// with -1 padding at the same positions. That is the reference's answer, whatever the
// order, so no score need be recomputed, and the inputs (the K cache: tens of MB to
// regenerate on the host for each check) are not needed.
bool same_selection_as_reference(std::span<const std::int32_t> cand, std::span<const std::int32_t> ref) {
  std::vector<std::int32_t> c, r;
  for (std::size_t row = 0; row + kTopK <= cand.size(); row += kTopK) {
    c.assign(cand.begin() + static_cast<std::ptrdiff_t>(row),
             cand.begin() + static_cast<std::ptrdiff_t>(row + kTopK));
    r.assign(ref.begin() + static_cast<std::ptrdiff_t>(row),
             ref.begin() + static_cast<std::ptrdiff_t>(row + kTopK));
    for (std::size_t i = 0; i < c.size(); ++i)
      if ((c[i] == -1) != (r[i] == -1)) return false;
    std::sort(c.begin(), c.end());
    std::sort(r.begin(), r.end());
    if (c != r) return false;
  }
  return true;
}

}  // namespace

CheckVerdict TopkIndexerChecker::check(const CheckContext& ctx) const {
  CheckVerdict v;
  const std::string output =
      ctx.definition.outputs.empty() ? "topk_indices" : ctx.definition.outputs.items[0].first;
  const HostTensor& c0 = ctx.candidate.at(0);
  const HostTensor& r0 = ctx.reference.at(0);
  if (c0.dtype() == DType::int32 && r0.dtype() == DType::int32 && c0.numel() == r0.numel() &&
      c0.numel() % kTopK == 0 && same_selection_as_reference(c0.as<std::int32_t>(), r0.as<std::int32_t>())) {
    v.extra[output] = {{"rows", c0.numel() / kTopK},
                       {"max_score_error", 0.0},
                       {"max_score_error_over_magnitude", 0.0},
                       {"max_error_over_tolerance", 0.0},
                       {"same_selection_as_reference", true}};
    v.passed = true;
    return v;
  }
  const IndexerScores scores(ctx.inputs());
  const std::int64_t batch = scores.batch();
  const HostTensor& cand = ctx.candidate.at(0);
  const HostTensor& ref = ctx.reference.at(0);
  for (const HostTensor* t : {&cand, &ref}) {
    if (t->dtype() != DType::int32 || t->numel() != static_cast<std::size_t>(batch * kTopK)) {
      v.reason = fmt::format("output '{}' must be int32 [{}, {}] ({} output)", output, batch, kTopK,
                             t == &cand ? "candidate" : "reference");
      return v;
    }
  }
  RowComparison worst;
  std::int64_t worst_row = -1;
  for (std::int64_t b = 0; b < batch; ++b) {
    RowOutcome row = check_row(scores, b, cand.as<std::int32_t>().subspan(b * kTopK, kTopK),
                               ref.as<std::int32_t>().subspan(b * kTopK, kTopK), ctx.tolerance,
                               fmt::format("output '{}' row {}", output, b));
    if (!row.error.empty()) {
      v.reason = std::move(row.error);
      return v;
    }
    v.max_absolute_error = std::max(v.max_absolute_error, row.comparison.max_abs_error);
    if (row.magnitude > 0)
      v.max_relative_error = std::max(v.max_relative_error, row.comparison.max_abs_error / row.magnitude);
    if (worst_row < 0 || row.comparison.worst_ratio > worst.worst_ratio) {
      worst = std::move(row.comparison);
      worst_row = b;
    }
  }
  v.extra[output] = {{"rows", batch},
                     {"max_score_error", v.max_absolute_error},
                     {"max_score_error_over_magnitude", v.max_relative_error},
                     {"max_error_over_tolerance", worst.worst_ratio},
                     {"worst_row", worst_row}};
  if (worst.worst_ratio > 1) {
    v.reason = fmt::format("output '{}' row {}: the selected tokens are not the request's best: {}", output,
                           worst_row, worst.detail);
    return v;
  }
  v.passed = true;
  return v;
}

}  // namespace kh
