// Known answers for the DeepSeek-V3 FP8 MoE CPU reference: hand-made routing cases
// whose group and expert choices are worked out below, checked through outputs that
// reveal each routing weight (small_problem), against values computed in float64 here;
// and the default checker at the contest tolerance against real wrong outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "eval/check/output_checker.h"
#include "moe_test_support.h"
#include "tensor/float_formats.h"

namespace kh::moe_test {
namespace {

constexpr int kOffset32 = 32;
constexpr float kScalingFactor = 2.5f;
constexpr float kOff = -8.0f;  // logit of an expert that never matters: sigmoid ~ 3.4e-4

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Token "clear": group 1 (experts 32..63) leads; expert 160 has the highest score of all
// but its group's second best is tiny, so group 5 loses to groups 0, 2 and 3.
//   group scores: g1 .881+.818=1.699, g0 .731+.622=1.353, g2 .690+.646=1.336,
//                 g3 .550+.525=1.075, g5 .982+.0003=.982, g4 .574+.378=.952
//   without bias: groups {1,0,2,3}; top 8 = 33 40 0 64 65 1 96 97 (45 at .500 is 9th)
//   bias +0.4 on 45 and +0.5 on 160: g1 = .900+.881, g5 = 1.482 -> groups {1,5,0,2};
//   top 8 by s + bias = 160 45 33 40 0 64 65 1, weights from s without bias.
// Token "remote": only groups 4..7 have high scores: no local expert either way.
// Token "excluded": expert 63 (s .953) is local, but its group's second best is tiny:
//   without bias g1 = .953 loses to g0, g2, g3 (1.462) and g4 (1.245): nothing local;
//   with the bias g1 = .953 + .400 = 1.353 beats g4; the top 8 are 63, six experts at
//   .731, and 45 (s .0003 + .4) as the 8th: expert 45 is chosen by its bias and gets the
//   tiny weight of its unbiased score.
std::vector<float> case_logits() {
  std::vector<float> x(3 * kExperts, kOff);
  auto set = [&](int t, int e, float v) { x[t * kExperts + e] = v; };
  for (auto [e, v] : std::map<int, float>{{0, 1.0f},
                                          {1, 0.5f},
                                          {33, 2.0f},
                                          {40, 1.5f},
                                          {45, 0.0f},
                                          {64, 0.8f},
                                          {65, 0.6f},
                                          {96, 0.2f},
                                          {97, 0.1f},
                                          {128, 0.3f},
                                          {129, -0.5f},
                                          {160, 4.0f}})
    set(0, e, v);
  for (int e : {128, 129, 161, 192, 193, 224, 225}) set(1, e, 1.0f);
  for (int e : {0, 1, 64, 65, 96, 97}) set(2, e, 1.0f);
  set(2, 63, 3.0f);
  set(2, 128, 0.5f);
  set(2, 129, 0.5f);
  return x;
}

std::vector<std::uint16_t> case_bias(bool with_bias) {
  std::vector<std::uint16_t> b(kExperts, float_to_bf16(0.0f));
  if (with_bias) {
    b[45] = float_to_bf16(0.4f);
    b[160] = float_to_bf16(0.5f);
  }
  return b;
}

// Activation scales [2 blocks, 3 tokens]: the transposed layout of the definition.
const std::vector<float> kHiddenScale = {1.0f, 0.5f, 0.25f, 2.0f, 1.0f, 0.75f};

// Expected output of small_problem: for each token its top-8 set, in float64.
std::vector<double> expected(const std::vector<float>& logits, const std::vector<std::vector<int>>& top8,
                             int offset) {
  const int tokens = static_cast<int>(top8.size());
  std::vector<double> out(static_cast<std::size_t>(tokens) * kSmallHidden, 0.0);
  for (int t = 0; t < tokens; ++t) {
    double sum = 0.0;
    for (int e : top8[t]) sum += sigmoid(logits[t * kExperts + e]);
    for (int e : top8[t]) {
      const int le = e - offset;
      if (le < 0 || le >= kLocal) continue;
      const double weight = sigmoid(logits[t * kExperts + e]) / sum * kScalingFactor;
      out[t * kSmallHidden + le] = weight * small_swiglu(le, kHiddenScale[t], kHiddenScale[tokens + t]);
    }
  }
  return out;
}

void expect_output(const HostTensor& got, const std::vector<double>& want) {
  const std::vector<double> g = to_float64(got);
  ASSERT_EQ(g.size(), want.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    // bf16 keeps 8 significant bits: half an ulp is 2^-9 of the value.
    EXPECT_NEAR(g[i], want[i], std::fabs(want[i]) * 0x1.0p-8 + 1e-9)
        << "token " << i / kSmallHidden << " column " << i % kSmallHidden;
  }
}

TEST(MoeReference, RoutesByGroupsThenExpertsWithoutBias) {
  const std::vector<float> logits = case_logits();
  std::vector<HostTensor> in =
      small_problem(logits, case_bias(false), kHiddenScale, kOffset32, kScalingFactor);
  const HostTensor out = reference_output(in);
  const std::vector<std::vector<int>> top8 = {{33, 40, 0, 64, 65, 1, 96, 97},
                                              {128, 129, 161, 192, 193, 224, 225, 160},
                                              {0, 1, 64, 65, 96, 97, 128, 129}};
  const std::vector<double> want = expected(logits, top8, kOffset32);
  expect_output(out, want);
  // The local experts are 33 (column 1) and 40 (column 8) of token 0, nothing else.
  EXPECT_NE(want[1], 0.0);
  EXPECT_NE(want[8], 0.0);
  EXPECT_EQ(want[13], 0.0);
}

TEST(MoeReference, BiasChangesTheChoiceButNotTheWeights) {
  const std::vector<float> logits = case_logits();
  std::vector<HostTensor> in =
      small_problem(logits, case_bias(true), kHiddenScale, kOffset32, kScalingFactor);
  const HostTensor out = reference_output(in);
  const std::vector<std::vector<int>> top8 = {{160, 45, 33, 40, 0, 64, 65, 1},
                                              {128, 129, 161, 192, 193, 224, 225, 160},
                                              {63, 0, 1, 64, 65, 96, 97, 45}};
  const std::vector<double> want = expected(logits, top8, kOffset32);
  expect_output(out, want);
  // Token 2's expert 45 (column 13) was chosen for its bias; its weight is its tiny
  // unbiased score over the sum: 3.5e-4 of the weight of expert 63 (column 31), where
  // biased scores would give 0.3. Two bf16 roundings allow 0.4% of error.
  const double w45 = to_float64(out)[2 * kSmallHidden + 13] / small_swiglu(13, 0.25, 0.75);
  const double w63 = to_float64(out)[2 * kSmallHidden + 31] / small_swiglu(31, 0.25, 0.75);
  EXPECT_NEAR(w45 / w63, sigmoid(kOff) / sigmoid(3.0), 1e-2 * sigmoid(kOff) / sigmoid(3.0));
}

TEST(MoeReference, LocalExpertOffsetSelectsTheComputedExperts) {
  const std::vector<float> logits = case_logits();
  // With offset 0 the local experts are 0..31: token 0 keeps experts 0 and 1, token 2
  // experts 0 and 1 as well; 33 and 40 are no longer computed.
  std::vector<HostTensor> in = small_problem(logits, case_bias(false), kHiddenScale, 0, kScalingFactor);
  const HostTensor out = reference_output(in);
  const std::vector<std::vector<int>> top8 = {{33, 40, 0, 64, 65, 1, 96, 97},
                                              {128, 129, 161, 192, 193, 224, 225, 160},
                                              {0, 1, 64, 65, 96, 97, 128, 129}};
  expect_output(out, expected(logits, top8, 0));
}

// The reference at the real sizes on generated inputs, for the checker tests below.
struct RealRun {
  std::vector<HostTensor> inputs;
  HostTensor output;
};

RealRun& real_run() {
  static RealRun run = [] {
    RealRun r;
    r.inputs = generate(library().workloads(kName, true).front(), 7);
    r.output = reference_output(r.inputs);
    return r;
  }();
  return run;
}

CheckVerdict check(const HostTensor& candidate) {
  std::vector<HostTensor> reference, cand;
  reference.push_back(real_run().output.clone());
  cand.push_back(candidate.clone());
  const OperatorEntry& e = entry();
  CheckContext ctx{e.definition, reference, cand, e.tolerance.value(),
                   []() -> const std::vector<HostTensor>& { return real_run().inputs; }};
  return make_output_checker(e.checker)->check(ctx);
}

TEST(MoeChecker, ReferenceOutputIsNonZeroAndOfAFewUnits) {
  const std::vector<double> v = to_float64(real_run().output);
  double squares = 0.0, largest = 0.0;
  std::size_t nonzero = 0;
  for (double x : v) {
    ASSERT_TRUE(std::isfinite(x));
    if (x != 0.0) ++nonzero;
    squares += x * x;
    largest = std::max(largest, std::fabs(x));
  }
  ASSERT_GT(nonzero, v.size() / 4);
  const double rms = std::sqrt(squares / static_cast<double>(nonzero));
  EXPECT_GT(rms, 1.5);  // well above atol = 1, so the tolerance still separates answers
  EXPECT_LT(rms, 10.0);
  EXPECT_LT(largest, 100.0);
}

TEST(MoeChecker, AcceptsTheReferenceAndRoundingNoise) {
  EXPECT_TRUE(check(real_run().output).passed);
  HostTensor noisy = real_run().output.clone();
  auto bits = noisy.as<std::uint16_t>();
  for (std::size_t i = 0; i < bits.size(); i += 3)
    if (bits[i] != 0) bits[i] = static_cast<std::uint16_t>(bits[i] + 1);  // one bf16 ulp
  const CheckVerdict v = check(noisy);
  EXPECT_TRUE(v.passed) << v.reason;
}

TEST(MoeChecker, RejectsAForgottenScalingFactor) {
  std::vector<HostTensor>& in = real_run().inputs;
  write_from_double(in[kScaling], 0, 1.0);
  const HostTensor wrong = reference_output(in);
  write_from_double(in[kScaling], 0, kScalingFactor);
  const CheckVerdict v = check(wrong);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.reason.find("output"), std::string::npos) << v.reason;
}

TEST(MoeChecker, RejectsTheWrongLocalExperts) {
  std::vector<HostTensor>& in = real_run().inputs;
  const double offset = read_as_double(in[kOffset], 0);
  write_from_double(in[kOffset], 0, offset == 0 ? 32 : offset - 32);
  const HostTensor wrong = reference_output(in);
  write_from_double(in[kOffset], 0, offset);
  EXPECT_FALSE(check(wrong).passed);
}

TEST(MoeChecker, RejectsATamperedFifthOfTheElements) {
  HostTensor tampered = real_run().output.clone();
  auto bits = tampered.as<std::uint16_t>();
  for (std::size_t i = 0; i < bits.size(); i += 5)
    bits[i] = float_to_bf16(bf16_to_float(bits[i]) + 3.0f);  // beyond atol 1 and rtol 0.3 for |x| < 10
  const CheckVerdict v = check(tampered);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.reason.find("within atol"), std::string::npos) << v.reason;
}

TEST(MoeChecker, RejectsAllZeros) {
  const HostTensor zeros(DType::bfloat16, real_run().output.shape());
  const CheckVerdict v = check(zeros);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.reason.find("all zeros"), std::string::npos) << v.reason;
}

}  // namespace
}  // namespace kh::moe_test
