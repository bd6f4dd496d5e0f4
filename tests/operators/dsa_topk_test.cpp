// Known answers for dsa_topk_indexer_fp8_h64_d128_topk2048_ps64: the CPU reference (and
// baseline) on hand-made inputs whose scores are exact, covering the page byte layout
// (values then scales), per-token scales, block-table indirection, relu and per-request
// weights, padding, and ties; then the input generator and the speed-of-light model.
#include <gtest/gtest.h>
#include <kharness/host_float.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "dsa_topk_fixture.h"
#include "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/harness/dsa_topk_inputs.h"
#include "eval/speed_of_light.h"

namespace kh::dsa_topk_test {
namespace {

std::vector<std::int32_t> row_of(const HostTensor& out, std::int64_t b) {
  const auto all = out.as<std::int32_t>();
  return {all.begin() + b * kTopK, all.begin() + (b + 1) * kTopK};
}

std::set<std::int32_t> valid_set(const std::vector<std::int32_t>& row) {
  std::set<std::int32_t> s;
  for (std::int32_t v : row)
    if (v != -1) s.insert(v);
  return s;
}

TEST(DsaTopkFp8, DecodesEveryCodeLikeTheHarness) {
  for (int c = 0; c < 256; ++c) {
    const float ours = kh_e4m3_to_float(static_cast<std::uint8_t>(c));
    const float harness = e4m3fn_to_float(static_cast<std::uint8_t>(c));
    if (std::isnan(harness)) {
      EXPECT_TRUE(std::isnan(ours)) << c;
    } else {
      EXPECT_EQ(ours, harness) << c;
    }
  }
  EXPECT_EQ(kh_e4m3_to_float(0x01), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_EQ(kh_e4m3_to_float(0x7E), 448.0f);
  EXPECT_EQ(kh_e4m3_to_float(0xB8), -1.0f);
}

// One request of 70 tokens over pages [2, 0]; token p's score is its scale s_p (a
// distinct integer), since q and the key are 1.0 at dimension 0 only. The other key
// dimensions hold 0.5 and page 1, which the request does not own, holds huge scores:
// reading scales interleaved per token, or pages without the block table, changes
// the answer.
std::vector<HostTensor> layout_case() {
  std::vector<HostTensor> in = zero_inputs(1, 2, 3);
  in[kSeqLens].as<std::int32_t>()[0] = 70;
  in[kTable].as<std::int32_t>()[0] = 2;
  in[kTable].as<std::int32_t>()[1] = 0;
  set_q(in, 0, 0, 0, 1.0f);
  in[kWeights].as<float>()[0] = 1.0f;
  for (std::int64_t page = 0; page < 3; ++page) {
    for (std::int64_t t = 0; t < kPage; ++t) {
      set_key(in, page, t, 0, 1.0f);
      for (std::int64_t d = 1; d < kDim; ++d) set_key(in, page, t, d, 0.5f);
      set_scale(in, page, t, 1000.0f);
    }
  }
  for (std::int64_t p = 0; p < 70; ++p) {
    const std::int64_t page = p < 64 ? 2 : 0;
    set_scale(in, page, p % 64, static_cast<float>(1 + (p * 37) % 70));
  }
  return in;
}

TEST(DsaTopkReference, ReadsScalesAfterThePageValuesThroughTheBlockTableAndPads) {
  std::vector<HostTensor> in = layout_case();
  const std::vector<std::int32_t> row = row_of(run_reference(in), 0);
  // Position p's score is 1 + (37 p mod 70): the best is the p with 37 p = 69 (mod 70),
  // i.e. p = 69 * 53 mod 70 = 17 (37 * 53 = 1 mod 70), global index 2 * 64 + 17 = 145.
  std::vector<std::int64_t> positions(70);
  std::iota(positions.begin(), positions.end(), 0);
  std::sort(positions.begin(), positions.end(),
            [](std::int64_t x, std::int64_t y) { return (x * 37) % 70 > (y * 37) % 70; });
  ASSERT_EQ(positions[0], 17);
  EXPECT_EQ(row[0], 145);
  for (std::int64_t i = 0; i < 70; ++i) {
    const std::int64_t p = positions[i];
    EXPECT_EQ(row[i], p < 64 ? 2 * 64 + p : 0 * 64 + (p - 64)) << "position " << i;
  }
  for (std::int64_t i = 70; i < kTopK; ++i) ASSERT_EQ(row[i], -1) << "padding at " << i;
}

TEST(DsaTopkBaseline, ReturnsTheSameSetOnTheLayoutCase) {
  std::vector<HostTensor> in = layout_case();
  const HostTensor ref = run_reference(in);
  const HostTensor base = run_baseline(in);
  EXPECT_EQ(valid_set(row_of(base, 0)), valid_set(row_of(ref, 0)));
  const std::vector<std::int32_t> row = row_of(base, 0);
  EXPECT_TRUE(std::all_of(row.begin() + 70, row.end(), [](std::int32_t v) { return v == -1; }));
  EXPECT_TRUE(check(in, ref, base).passed);
}

// Three tokens, two heads (head 0 reads dimension 0, head 1 dimension 1), two requests
// sharing the page with different weights. Request 0 (w = 1, 0.5): relu(2)+relu(-8)/2 = 2,
// 1 + 3/2 = 2.5, relu(-1) + 2/2 = 1, so [1, 0, 2]; without the relu it would be [1, 2, 0].
// Request 1 (w = 0.25, 1): 0.5, 3.25, 2, so [1, 2, 0].
TEST(DsaTopkReference, AppliesReluThenPerRequestWeights) {
  std::vector<HostTensor> in = zero_inputs(2, 1, 1);
  for (std::int64_t b = 0; b < 2; ++b) {
    in[kSeqLens].as<std::int32_t>()[b] = 3;
    set_q(in, b, 0, 0, 1.0f);
    set_q(in, b, 1, 1, 1.0f);
  }
  const float w[2][2] = {{1.0f, 0.5f}, {0.25f, 1.0f}};
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t h = 0; h < 2; ++h) in[kWeights].as<float>()[b * kHeads + h] = w[b][h];
  const float keys[3][2] = {{2, -8}, {1, 3}, {-1, 2}};
  for (std::int64_t t = 0; t < 3; ++t) {
    set_key(in, 0, t, 0, keys[t][0]);
    set_key(in, 0, t, 1, keys[t][1]);
    set_scale(in, 0, t, 1.0f);
  }
  const HostTensor out = run_reference(in);
  const std::vector<std::int32_t> first = row_of(out, 0);
  const std::vector<std::int32_t> second = row_of(out, 1);
  EXPECT_EQ(std::vector<std::int32_t>(first.begin(), first.begin() + 4),
            (std::vector<std::int32_t>{1, 0, 2, -1}));
  EXPECT_EQ(std::vector<std::int32_t>(second.begin(), second.begin() + 4),
            (std::vector<std::int32_t>{1, 2, 0, -1}));
  EXPECT_TRUE(std::all_of(first.begin() + 3, first.end(), [](std::int32_t v) { return v == -1; }));
  EXPECT_TRUE(check(in, out, run_baseline(in)).passed);
}

TEST(DsaTopkReference, EmptyRequestIsAllPadding) {
  std::vector<HostTensor> in = zero_inputs(1, 32, 32);
  const std::vector<std::int32_t> row = row_of(run_reference(in), 0);
  EXPECT_TRUE(std::all_of(row.begin(), row.end(), [](std::int32_t v) { return v == -1; }));
  const std::vector<std::int32_t> base = row_of(run_baseline(in), 0);
  EXPECT_TRUE(std::all_of(base.begin(), base.end(), [](std::int32_t v) { return v == -1; }));
}

// 2060 tokens over 33 pages in reverse order: positions 0..1999 score 10 + p / 1024
// (distinct), 2000..2049 all score exactly 3 (a 50-way tie for the last 48 places),
// 2050..2059 score 1. Every token's score is its scale (q = key = 1 at dimension 0).
std::vector<HostTensor> tie_case() {
  std::vector<HostTensor> in = zero_inputs(1, 33, 33);
  in[kSeqLens].as<std::int32_t>()[0] = 2060;
  for (std::int64_t j = 0; j < 33; ++j) in[kTable].as<std::int32_t>()[j] = static_cast<std::int32_t>(32 - j);
  set_q(in, 0, 0, 0, 1.0f);
  in[kWeights].as<float>()[0] = 1.0f;
  for (std::int64_t p = 0; p < 2060; ++p) {
    const std::int64_t page = 32 - p / kPage;
    const float score = p < 2000 ? 10.0f + static_cast<float>(p) / 1024.0f : (p < 2050 ? 3.0f : 1.0f);
    set_key(in, page, p % kPage, 0, 1.0f);
    set_scale(in, page, p % kPage, score);
  }
  return in;
}

std::int32_t global_of_tie_position(std::int64_t p) {
  return static_cast<std::int32_t>((32 - p / 64) * 64 + p % 64);
}

TEST(DsaTopkReference, BreaksTiesTowardTheEarlierTokenInScoreOrder) {
  std::vector<HostTensor> in = tie_case();
  const std::vector<std::int32_t> row = row_of(run_reference(in), 0);
  for (std::int64_t i = 0; i < 2000; ++i) ASSERT_EQ(row[i], global_of_tie_position(1999 - i)) << i;
  for (std::int64_t i = 2000; i < kTopK; ++i) ASSERT_EQ(row[i], global_of_tie_position(i)) << i;
}

TEST(DsaTopkChecker, AcceptsAnyTieConsistentChoiceAndRejectsALowerToken) {
  std::vector<HostTensor> in = tie_case();
  const HostTensor ref = run_reference(in);
  // The other two of the tied tokens instead of the reference's last two: still a top-k.
  HostTensor other = ref.clone();
  other.as<std::int32_t>()[2046] = global_of_tie_position(2048);
  other.as<std::int32_t>()[2047] = global_of_tie_position(2049);
  const CheckVerdict tie = check(in, ref, other);
  EXPECT_TRUE(tie.passed) << tie.reason;
  // A score-1 token instead of a tied score-3 one: 2 below the true 2048th score.
  HostTensor lower = ref.clone();
  lower.as<std::int32_t>()[2047] = global_of_tie_position(2055);
  const CheckVerdict wrong = check(in, ref, lower);
  EXPECT_FALSE(wrong.passed);
  EXPECT_NE(wrong.reason.find("row 0"), std::string::npos) << wrong.reason;
  EXPECT_NE(wrong.reason.find("#2047"), std::string::npos) << wrong.reason;
  EXPECT_NE(wrong.reason.find("index " + std::to_string(global_of_tie_position(2055))), std::string::npos)
      << wrong.reason;
  // The baseline breaks ties its own way and must pass too.
  const CheckVerdict base = check(in, ref, run_baseline(in));
  EXPECT_TRUE(base.passed) << base.reason;
}

// ---- the input generator ----

struct GeneratedShape {
  std::int64_t batch, max_pages, num_pages;
};

void expect_valid_structure(const std::vector<HostTensor>& in, const GeneratedShape& s) {
  const auto lens = in[kSeqLens].as<std::int32_t>();
  const auto table = in[kTable].as<std::int32_t>();
  std::vector<std::int64_t> need;
  bool has_full = false, has_short = false;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    ASSERT_GE(lens[b], 1);
    ASSERT_LE(lens[b], s.max_pages * kPage);
    need.push_back((lens[b] + kPage - 1) / kPage);
    has_full |= need.back() == s.max_pages;
    has_short |= lens[b] < kTopK;
  }
  EXPECT_TRUE(has_full) << "no request uses all max_num_pages pages";
  if (s.batch >= 2) {
    EXPECT_TRUE(has_short) << "no request shorter than 2048";
  }
  std::set<std::int32_t> all_pages;
  std::int64_t total = 0;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    std::set<std::int32_t> row;
    for (std::int64_t j = 0; j < s.max_pages; ++j) {
      const std::int32_t page = table[b * s.max_pages + j];
      if (j >= need[b]) {
        EXPECT_EQ(page, 0) << "unused entry " << b << "," << j;
        continue;
      }
      ASSERT_GE(page, 0);
      ASSERT_LT(page, s.num_pages);
      EXPECT_TRUE(row.insert(page).second) << "page " << page << " twice in row " << b;
      all_pages.insert(page);
    }
    total += need[b];
  }
  if (total <= s.num_pages) {
    EXPECT_EQ(static_cast<std::int64_t>(all_pages.size()), total) << "rows overlap";
  }
}

void expect_valid_values(const std::vector<HostTensor>& in) {
  const auto cache = in[kCache].as<std::uint8_t>();
  const std::int64_t pages = in[kCache].shape()[0];
  for (std::int64_t p = 0; p < pages; ++p) {
    const std::uint8_t* page = cache.data() + p * kPage * (kDim + 4);
    for (std::int64_t i = 0; i < kPage * kDim; ++i) ASSERT_NE(page[i] & 0x7F, 0x7F) << "NaN code, page " << p;
    for (std::int64_t t = 0; t < kPage; ++t) {
      float scale;
      std::memcpy(&scale, page + kPage * kDim + 4 * t, 4);
      ASSERT_TRUE(std::isfinite(scale) && scale > 0) << "page " << p << " token " << t << " scale " << scale;
    }
  }
  for (std::uint8_t c : in[kQ].as<std::uint8_t>()) ASSERT_NE(c & 0x7F, 0x7F);
  std::int64_t negative = 0;
  for (float w : in[kWeights].as<float>()) {
    ASSERT_TRUE(std::isfinite(w));
    negative += w < 0;
  }
  EXPECT_GT(negative, 0);
  EXPECT_LT(negative, static_cast<std::int64_t>(in[kWeights].numel()));
}

TEST(DsaTopkInputs, AreValidAndDeterministic) {
  // Disjoint rows (a big pool), rows that must share pages (pool = max_num_pages), one request.
  for (const GeneratedShape s :
       {GeneratedShape{5, 40, 400}, GeneratedShape{4, 36, 36}, GeneratedShape{1, 32, 32}}) {
    SCOPED_TRACE(::testing::Message() << s.batch << "x" << s.max_pages << " pool " << s.num_pages);
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const std::vector<HostTensor> in = generated(s.batch, s.max_pages, s.num_pages, seed);
      expect_valid_structure(in, s);
      expect_valid_values(in);
    }
    const std::vector<HostTensor> a = generated(s.batch, s.max_pages, s.num_pages, 7);
    const std::vector<HostTensor> b = generated(s.batch, s.max_pages, s.num_pages, 7);
    const std::vector<HostTensor> c = generated(s.batch, s.max_pages, s.num_pages, 8);
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_TRUE(std::equal(a[i].bytes().begin(), a[i].bytes().end(), b[i].bytes().begin()))
          << "input " << i;
      if (i != kSeqLens || s.batch > 1) {
        EXPECT_FALSE(std::equal(a[i].bytes().begin(), a[i].bytes().end(), c[i].bytes().begin()))
            << "input " << i;
      }
    }
  }
}

TEST(DsaTopkInputs, KeyScalesVaryByToken) {
  const std::vector<HostTensor> in = generated(1, 32, 32, 11);
  double lo = INFINITY, hi = 0;
  for (std::int64_t t = 0; t < 32 * kPage; ++t) {
    float scale;
    std::memcpy(&scale,
                in[kCache].bytes().data() + (t / kPage) * kPage * (kDim + 4) + kPage * kDim + 4 * (t % kPage),
                4);
    lo = std::min<double>(lo, scale);
    hi = std::max<double>(hi, scale);
  }
  EXPECT_GT(hi / lo, 3.0) << "a kernel ignoring the scales would still pick the right tokens";
}

// The speed-of-light model counts the tokens a set holds on average: its flops are
// tokens * 64 * (2 * 128 + 2). The generator's mean over many seeds must agree.
TEST(DsaTopkInputs, MeanTokensMatchTheSpeedOfLightModel) {
  const OperatorEntry& op = indexer_op();
  ASSERT_TRUE(op.speed_of_light.has_value());
  const auto generator = make_dsa_topk_inputs();
  for (const std::int64_t batch : {1, 2, 7, 31}) {
    const std::int64_t max_pages = 40;
    AxisValues axes{{"batch_size", batch},
                    {"num_index_heads", 64},
                    {"index_head_dim", 128},
                    {"page_size", 64},
                    {"topk", 2048},
                    {"max_num_pages", max_pages},
                    {"num_pages", 1},
                    {"kv_cache_num_heads", 1},
                    {"head_dim_with_scale", 132}};
    std::vector<HostTensor> in = zero_inputs(batch, max_pages, 1);
    const std::vector<bool> only_lengths{false, false, false, true, false};
    double sum = 0;
    const int sets = 2000;
    for (int seed = 0; seed < sets; ++seed) {
      generate_structured_on_host(*generator, op.definition, axes, static_cast<std::uint64_t>(seed), in,
                                  only_lengths);
      for (std::int32_t n : in[kSeqLens].as<std::int32_t>()) sum += n;
    }
    const double model = evaluate_work(*op.speed_of_light, axes).flops / (64.0 * (2 * 128 + 2));
    EXPECT_NEAR(sum / sets, model, 0.02 * model) << "batch " << batch;
  }
}

}  // namespace
}  // namespace kh::dsa_topk_test
