// Known answers for dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64: the CPU
// reference on tiny hand-made cases with -1 padding (one valid row, two rows with a known
// logit gap, duplicates, an all-padding token, base-2 lse), its structured-input
// generator (valid, distinct, per-token pages, deterministic) and the checker with the
// operator's own tolerance against real wrong outputs.
#include <gtest/gtest.h>
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <set>
#include <vector>

#include "eval/check/output_checker.h"
#include "eval/input_generator.h"
#include "eval/operator_library.h"
#include "eval/workload_shapes.h"
#include "tensor/float_formats.h"
#include "tensor/host_tensor.h"

void dsa_sparse_attention_reference(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                    const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                    DLTensor* output, DLTensor* lse, kh_stream_t stream);
void dsa_sparse_attention_baseline(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                   const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                   DLTensor* output, DLTensor* lse, kh_stream_t stream);

namespace kh {
namespace {

constexpr const char* kName = "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64";
constexpr int64_t kHeads = 16, kDimV = 512, kDimPe = 64, kPage = 64, kTopk = 2048;
constexpr double kInf = std::numeric_limits<double>::infinity();

const OperatorEntry& entry() {
  static const OperatorLibrary ops =
      OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  const OperatorEntry* e = ops.find(kName);
  if (e == nullptr) throw std::runtime_error("operator folder missing");
  return *e;
}

// Inputs in definition order (sm_scale as a 0-d float32) and the two outputs.
struct Problem {
  std::vector<HostTensor> in;
  std::vector<HostTensor> out;

  Problem(int64_t tokens, int64_t pages, float sm_scale) {
    in.emplace_back(DType::bfloat16, std::vector<int64_t>{tokens, kHeads, kDimV});
    in.emplace_back(DType::bfloat16, std::vector<int64_t>{tokens, kHeads, kDimPe});
    in.emplace_back(DType::bfloat16, std::vector<int64_t>{pages, kPage, kDimV});
    in.emplace_back(DType::bfloat16, std::vector<int64_t>{pages, kPage, kDimPe});
    in.emplace_back(DType::int32, std::vector<int64_t>{tokens, kTopk});
    in.push_back(HostTensor::scalar(DType::float32));
    in[5].as<float>()[0] = sm_scale;
    for (int32_t& i : in[4].as<int32_t>()) i = -1;
    out.emplace_back(DType::bfloat16, std::vector<int64_t>{tokens, kHeads, kDimV});
    out.emplace_back(DType::float32, std::vector<int64_t>{tokens, kHeads});
  }
  explicit Problem(std::vector<HostTensor> inputs, int64_t tokens) : in(std::move(inputs)) {
    out.emplace_back(DType::bfloat16, std::vector<int64_t>{tokens, kHeads, kDimV});
    out.emplace_back(DType::float32, std::vector<int64_t>{tokens, kHeads});
  }

  void set(int index, int64_t element, float value) {
    in[index].as<uint16_t>()[element] = float_to_bf16(value);
  }
  void q_nope(int64_t t, int64_t h, int64_t d, float v) { set(0, (t * kHeads + h) * kDimV + d, v); }
  void q_pe(int64_t t, int64_t h, int64_t d, float v) { set(1, (t * kHeads + h) * kDimPe + d, v); }
  void ckv(int64_t row, int64_t d, float v) { set(2, row * kDimV + d, v); }
  void kpe(int64_t row, int64_t d, float v) { set(3, row * kDimPe + d, v); }
  void index(int64_t t, int64_t slot, int32_t row) { in[4].as<int32_t>()[t * kTopk + slot] = row; }

  template <class Fn>
  void run(Fn fn) {
    std::vector<DLTensor> v;
    for (HostTensor& t : in) v.push_back(t.dlpack_view());
    DLTensor o = out[0].dlpack_view(), l = out[1].dlpack_view();
    fn(&v[0], &v[1], &v[2], &v[3], &v[4], in[5].as<float>()[0], &o, &l, nullptr);
  }
  double output(int64_t t, int64_t h, int64_t d) const {
    return bf16_to_float(out[0].as<uint16_t>()[(t * kHeads + h) * kDimV + d]);
  }
  double lse(int64_t t, int64_t h) const { return out[1].as<float>()[t * kHeads + h]; }
};

double bf16_round(double v) { return bf16_to_float(float_to_bf16(static_cast<float>(v))); }

TEST(DsaAttentionReference, OneValidIndexAmongPaddingReturnsItsRowAndItsLogit) {
  Problem p(1, 2, 0.25f);
  const int64_t row = 64 + 5;  // page 1, offset 5
  for (int64_t d = 0; d < kDimV; ++d) p.ckv(row, d, static_cast<float>(d % 7) - 3.0f);
  p.kpe(row, 3, 2.0f);
  for (int64_t h = 0; h < kHeads; ++h) {
    p.q_nope(0, h, 0, static_cast<float>(h));  // q.k = h * (-3) + 1 * 2 from the kpe part
    p.q_pe(0, h, 3, 1.0f);
  }
  p.index(0, 1500, static_cast<int32_t>(row));  // padding before and after it
  p.run(dsa_sparse_attention_reference);
  for (int64_t h = 0; h < kHeads; ++h) {
    for (int64_t d = 0; d < kDimV; ++d)
      ASSERT_EQ(p.output(0, h, d), static_cast<double>(d % 7) - 3.0) << h << "," << d;
    const double logit = (-3.0 * static_cast<double>(h) + 2.0) * 0.25;
    EXPECT_NEAR(p.lse(0, h), logit / std::log(2.0), 1e-5) << h;  // a single term: lse is the logit, in base 2
  }
}

TEST(DsaAttentionReference, TwoRowsAreWeightedBySoftmaxOfScaledLogits) {
  Problem p(1, 4, 0.5f);
  const int64_t a = 3 * 64 + 63, b = 7;
  for (int64_t d = 0; d < kDimV; ++d) {
    p.ckv(a, d, 1.0f);
    p.ckv(b, d, d < 256 ? -1.0f : 2.0f);
  }
  p.ckv(a, 10, 4.0f);  // key dim 10 separates the rows: logit(a) - logit(b) = 0.5 * 3 * q[10]
  p.ckv(b, 10, 1.0f);
  for (int64_t h = 0; h < kHeads; ++h) p.q_nope(0, h, 10, 0.25f * static_cast<float>(h));
  p.index(0, 0, -1);
  p.index(0, 2, static_cast<int32_t>(b));
  p.index(0, 900, static_cast<int32_t>(a));
  p.run(dsa_sparse_attention_reference);
  for (int64_t h = 0; h < kHeads; ++h) {
    const double qh = 0.25 * static_cast<double>(h);
    const double la = 0.5 * 4.0 * qh, lb = 0.5 * 1.0 * qh;  // q is 0 outside dim 10
    const double wa = std::exp(la) / (std::exp(la) + std::exp(lb));
    for (int64_t d : {0, 10, 255, 256, 511}) {
      const double va = d == 10 ? 4.0 : 1.0;
      const double vb = d == 10 ? 1.0 : (d < 256 ? -1.0 : 2.0);
      EXPECT_EQ(p.output(0, h, d), bf16_round(wa * va + (1 - wa) * vb)) << h << "," << d;
    }
    EXPECT_NEAR(p.lse(0, h), std::log2(std::exp(la) + std::exp(lb)), 1e-5) << h;
  }
}

TEST(DsaAttentionReference, LseIsBaseTwoLogOfTheNumberOfEqualLogits) {
  // q = 0: every logit is 0, so lse = log2(n) and the output is the plain mean.
  Problem p(2, 32, 1.0f);
  for (int64_t r = 0; r < 32 * kPage; ++r) p.ckv(r, 0, static_cast<float>(r % 4));
  for (int64_t i = 0; i < kTopk; ++i) p.index(0, i, static_cast<int32_t>(i));  // a full list: 2048 rows
  for (int64_t i = 0; i < 8; ++i)
    p.index(1, 100 * i + 3, static_cast<int32_t>(4 * i + 1));  // 8 rows, value 1
  p.run(dsa_sparse_attention_reference);
  for (int64_t h = 0; h < kHeads; ++h) {
    EXPECT_DOUBLE_EQ(p.lse(0, h), 11.0);
    EXPECT_DOUBLE_EQ(p.lse(1, h), 3.0);
    EXPECT_EQ(p.output(0, h, 0), 1.5);  // mean of 0,1,2,3 repeated
    EXPECT_EQ(p.output(1, h, 0), 1.0);
    EXPECT_EQ(p.output(1, h, 1), 0.0);
  }
}

TEST(DsaAttentionReference, DuplicatedIndexCountsTwice) {
  Problem p(1, 1, 1.0f);
  p.ckv(2, 0, 3.0f);
  p.ckv(9, 0, 6.0f);
  p.index(0, 0, 2);
  p.index(0, 1, 9);
  p.index(0, 2040, 2);  // row 2 twice: weights 2/3 and 1/3
  p.run(dsa_sparse_attention_reference);
  for (int64_t h = 0; h < kHeads; ++h) {
    EXPECT_EQ(p.output(0, h, 0), 4.0);  // (3 + 6 + 3) / 3
    EXPECT_NEAR(p.lse(0, h), std::log2(3.0), 1e-6);
  }
}

TEST(DsaAttentionReference, TokenWithOnlyPaddingGivesZeroAndMinusInfinityAndLeavesOthersAlone) {
  Problem p(3, 1, 1.0f);
  for (int64_t d = 0; d < kDimV; ++d) {
    p.ckv(0, d, 5.0f);
    p.set(0, d, 1.0f);  // q_nope of token 0 head 0: nonzero, so a leak would show
  }
  p.index(0, 7, 0);
  p.index(2, 2047, 0);                               // token 1 keeps all -1
  for (float& v : p.out[1].as<float>()) v = 123.0f;  // outputs start as garbage
  for (uint16_t& v : p.out[0].as<uint16_t>()) v = float_to_bf16(-7.0f);
  p.run(dsa_sparse_attention_reference);
  for (int64_t h = 0; h < kHeads; ++h) {
    EXPECT_EQ(p.lse(1, h), -kInf);
    for (int64_t d = 0; d < kDimV; ++d) ASSERT_EQ(p.output(1, h, d), 0.0) << h << "," << d;
    EXPECT_EQ(p.output(0, h, 3), 5.0);
    EXPECT_EQ(p.output(2, h, 3), 5.0);
    EXPECT_TRUE(std::isfinite(p.lse(0, h)));
  }
}

// --- the generator -----------------------------------------------------------------

Workload ci_workload(int64_t tokens, int64_t pages) {
  for (const Workload& w : OperatorLibrary::load(entry().dir.parent_path()).workloads(kName, true)) {
    const AxisValues axes = resolve_axes(entry().definition, w);
    if (axes.at("num_tokens") == tokens && axes.at("num_pages") == pages) return w;
  }
  throw std::runtime_error("ci workload not found");
}

std::vector<HostTensor> generate(const Workload& w, uint64_t seed) {
  return make_inputs(entry().definition, w, seed, entry().dir);
}

struct TokenList {
  std::vector<int32_t> valid;
  bool interleaved = false;  // a -1 before some valid entry
};

std::vector<TokenList> lists_of(const HostTensor& indices) {
  std::vector<TokenList> lists(static_cast<size_t>(indices.shape()[0]));
  std::span<const int32_t> all = indices.as<int32_t>();
  for (size_t t = 0; t < lists.size(); ++t) {
    bool seen_padding = false;
    for (int64_t i = 0; i < kTopk; ++i) {
      const int32_t v = all[t * kTopk + static_cast<size_t>(i)];
      if (v == -1) {
        seen_padding = true;
      } else {
        lists[t].valid.push_back(v);
        lists[t].interleaved = lists[t].interleaved || seen_padding;
      }
    }
  }
  return lists;
}

TEST(DsaAttentionInputs, IndicesAreDistinctRowsOfEachTokensOwnPages) {
  for (const auto& [tokens, pages] : std::vector<std::pair<int64_t, int64_t>>{{1, 40}, {2, 64}, {3, 2}}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      const std::vector<HostTensor> in = generate(ci_workload(tokens, pages), seed);
      std::set<int64_t> pages_seen;
      for (const TokenList& l : lists_of(in[4])) {
        std::set<int32_t> rows(l.valid.begin(), l.valid.end());
        EXPECT_EQ(rows.size(), l.valid.size()) << "duplicate index, seed " << seed;
        std::set<int64_t> own;
        for (int32_t r : l.valid) {
          ASSERT_GE(r, 0);
          ASSERT_LT(r, pages * kPage);
          own.insert(r / kPage);
        }
        for (int64_t page : own) EXPECT_TRUE(pages_seen.insert(page).second) << "page shared by two tokens";
      }
    }
  }
}

TEST(DsaAttentionInputs, CiWorkloadsCoverEmptyPaddedAndInterleavedLists) {
  const std::vector<TokenList> l = lists_of(generate(ci_workload(3, 2), 42)[4]);
  ASSERT_EQ(l.size(), 3u);
  EXPECT_TRUE(l[2].valid.empty()) << "the token past the last page has no index";
  ASSERT_FALSE(l[0].valid.empty());
  EXPECT_GE(l[0].valid.size(), 48u);
  EXPECT_LE(l[0].valid.size(), 64u);
  EXPECT_FALSE(l[0].interleaved) << "even tokens keep their padding at the tail";
  EXPECT_TRUE(l[1].interleaved) << "odd padded tokens interleave -1 with valid entries";
  // One token with a context longer than topk over a few seeds: a full list of 2048.
  bool full = false, padded = false;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    const size_t n = lists_of(generate(ci_workload(1, 40), seed)[4])[0].valid.size();
    full = full || n == static_cast<size_t>(kTopk);
    padded = padded || n < static_cast<size_t>(kTopk);
  }
  EXPECT_TRUE(full);
  EXPECT_TRUE(padded);
}

TEST(DsaAttentionInputs, SameSeedSameListsOtherSeedOtherLists) {
  const Workload w = ci_workload(2, 64);
  const std::vector<HostTensor> a = generate(w, 7), b = generate(w, 7), c = generate(w, 8);
  for (size_t i = 0; i < 5; ++i) {
    ASSERT_TRUE(std::equal(a[i].bytes().begin(), a[i].bytes().end(), b[i].bytes().begin())) << "input " << i;
  }
  EXPECT_FALSE(std::equal(a[4].bytes().begin(), a[4].bytes().end(), c[4].bytes().begin()));
}

TEST(DsaAttentionInputs, ContestSizedWorkloadGetsFullListsFromItsLongContexts) {
  const std::vector<Workload> all = OperatorLibrary::load(entry().dir.parent_path()).workloads(kName, false);
  ASSERT_EQ(all.size(), 23u);
  const Workload& w = all[2];  // one token, 1277 pages: a context of 61K..82K rows
  ASSERT_EQ(resolve_axes(entry().definition, w).at("num_pages"), 1277);
  const std::vector<TokenList> l = lists_of(generate(w, 5)[4]);
  EXPECT_EQ(l[0].valid.size(), static_cast<size_t>(kTopk));
  std::set<int32_t> rows(l[0].valid.begin(), l[0].valid.end());
  EXPECT_EQ(rows.size(), static_cast<size_t>(kTopk));
}

// --- the checker with the operator's tolerance ----------------------------------------

class DsaAttentionChecker : public ::testing::Test {
 protected:
  // Generated ci inputs (3 tokens, 2 pages: padded, interleaved and empty lists).
  void SetUp() override {
    inputs_ = generate(ci_workload(3, 2), 11);
    reference_ = outputs_of(inputs_, dsa_sparse_attention_reference);
  }
  template <class Fn>
  static std::vector<HostTensor> outputs_of(const std::vector<HostTensor>& in, Fn fn, float scale = 0) {
    std::vector<HostTensor> copy;
    for (const HostTensor& t : in) copy.push_back(t.clone());
    if (scale != 0) copy[5].as<float>()[0] = scale;
    Problem p(std::move(copy), 3);
    p.run(fn);
    return std::move(p.out);
  }
  CheckVerdict check(const std::vector<HostTensor>& candidate) const {
    const std::unique_ptr<OutputChecker> checker = make_output_checker(entry().checker);
    const CheckContext ctx{entry().definition, reference_, candidate, entry().tolerance.value(),
                           [this]() -> const std::vector<HostTensor>& { return inputs_; }};
    return checker->check(ctx);
  }
  std::vector<HostTensor> inputs_;
  std::vector<HostTensor> reference_;
};

TEST_F(DsaAttentionChecker, AcceptsTheBaselineIncludingMinusInfinityLse) {
  const std::vector<HostTensor> baseline = outputs_of(inputs_, dsa_sparse_attention_baseline);
  EXPECT_EQ(baseline[1].as<float>()[2 * kHeads], -std::numeric_limits<float>::infinity());
  const CheckVerdict v = check(baseline);
  EXPECT_TRUE(v.passed) << v.reason;
}

TEST_F(DsaAttentionChecker, RejectsATamperedOutputElement) {
  std::vector<HostTensor> bad = outputs_of(inputs_, dsa_sparse_attention_baseline);
  uint16_t& e = bad[0].as<uint16_t>()[kHeads * kDimV + 5 * kDimV + 77];  // token 1, head 5
  e = float_to_bf16(bf16_to_float(e) + 0.03f);
  const CheckVerdict v = check(bad);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.reason.find("output"), std::string::npos) << v.reason;
}

TEST_F(DsaAttentionChecker, RejectsAFiniteLseWhereThereIsNoKey) {
  std::vector<HostTensor> bad = outputs_of(inputs_, dsa_sparse_attention_baseline);
  bad[1].as<float>()[2 * kHeads + 3] = 0.0f;  // the empty token must report -inf
  EXPECT_FALSE(check(bad).passed);
}

TEST_F(DsaAttentionChecker, RejectsAKernelThatForgetsTheScale) {
  EXPECT_FALSE(check(outputs_of(inputs_, dsa_sparse_attention_reference, 1.0f)).passed);
}

TEST_F(DsaAttentionChecker, RejectsANaturalLogLse) {
  std::vector<HostTensor> bad = outputs_of(inputs_, dsa_sparse_attention_reference);
  for (float& v : bad[1].as<float>()) v = static_cast<float>(v * std::log(2.0));
  EXPECT_FALSE(check(bad).passed);
}

TEST_F(DsaAttentionChecker, RejectsAKernelThatReadsPaddingAsRowZero) {
  std::vector<HostTensor> wrong_inputs;
  for (const HostTensor& t : inputs_) wrong_inputs.push_back(t.clone());
  for (int32_t& i : wrong_inputs[4].as<int32_t>()) i = i == -1 ? 0 : i;
  EXPECT_FALSE(check(outputs_of(wrong_inputs, dsa_sparse_attention_reference)).passed);
}

TEST_F(DsaAttentionChecker, RejectsAKernelThatDropsOneValidIndexPerToken) {
  std::vector<HostTensor> wrong_inputs;
  for (const HostTensor& t : inputs_) wrong_inputs.push_back(t.clone());
  std::span<int32_t> idx = wrong_inputs[4].as<int32_t>();
  for (int64_t t = 0; t < 2; ++t) {  // tokens 0 and 1 have at most 64 valid entries
    for (int64_t i = kTopk - 1; i >= 0; --i) {
      if (idx[static_cast<size_t>(t * kTopk + i)] != -1) {
        idx[static_cast<size_t>(t * kTopk + i)] = -1;  // an off-by-one at the end of the list
        break;
      }
    }
  }
  EXPECT_FALSE(check(outputs_of(wrong_inputs, dsa_sparse_attention_reference)).passed);
}

}  // namespace
}  // namespace kh
