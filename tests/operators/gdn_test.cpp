// Known-answer tests of the gated delta rule references (and the C++ baselines):
// tiny hand-made cases whose values follow from the math by hand (unit-vector keys,
// g = beta = 1/2), every head checked against a float64 model, the empty-sequence rule,
// and the operators' tolerances: they accept a correct kernel with another summation
// order and reject real wrong outputs (wrong beta, wrong decay, wrong scale).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "eval/check/output_checker.h"
#include "eval/workload_shapes.h"
#include "gdn_cases.h"

namespace kh::gdn_test {
namespace {

constexpr double kScale = 0.08838834764831845;  // 1/sqrt(128)

// Hand case: v head 0 (q/k head 0) has k = q = e_0, A_log = 0, dt_bias = a = 0, b = 0, so
// g = exp(-softplus(0)) = exp(-ln 2) = 1/2 and beta = sigmoid(0) = 1/2. The other heads
// get varied data, checked against the model. `t0` is the first token of the case.
void fill_case(std::vector<HostTensor>& in, int tokens, int seqs) {
  for (int h = 0; h < kVHeads; ++h) {
    in[kALog].as<float>()[h] = h == 0 ? 0.f : static_cast<float>(std::log(1.0 + h));
    in[kDtBias].as<float>()[h] = h == 0 ? 0.f : -2.0f + 0.25f * static_cast<float>(h);
  }
  for (int t = 0; t < tokens; ++t) {
    for (int h = 0; h < kQkHeads; ++h) {
      for (int i = 0; i < kDim; ++i) {
        const auto at = static_cast<std::size_t>((t * kQkHeads + h) * kDim + i);
        // head 0: e_0; head 1: (1/2, 1/2, 1/2, 1/2, 0, ...) (exact in bf16); others: a spread.
        const double kv = h == 0 ? (i == 0) : h == 1 ? (i < 4) * 0.5 : std::sin(0.3 * i + h + t) / 8;
        const double qv = h == 0   ? (i == 0)
                          : h == 1 ? (i < 4) * (i % 2 ? -0.5 : 0.5)
                                   : std::cos(0.2 * i - h + t) / 8;
        set_bf16(in[kK], at, kv);
        set_bf16(in[kQ], at, qv);
      }
    }
    for (int h = 0; h < kVHeads; ++h) {
      const auto vh = static_cast<std::size_t>(t * kVHeads + h);
      set_bf16(in[kA], vh, h == 0 ? 0.0 : 0.5 * std::sin(1.0 + h + t));
      set_bf16(in[kB], vh, h == 0 ? 0.0 : std::cos(2.0 * h + t));
      for (int r = 0; r < kDim; ++r)
        set_bf16(in[kV], vh * kDim + static_cast<std::size_t>(r),
                 ((r + 3 * t) % 7 - 3) / 4.0 + (h == 0 ? 0 : 0.125 * h));
    }
  }
  float* s = in[kState].as<float>().data();
  for (int n = 0; n < seqs; ++n)
    for (int h = 0; h < kVHeads; ++h)
      for (int r = 0; r < kDim; ++r)
        for (int i = 0; i < kDim; ++i)
          s[((n * kVHeads + h) * kDim + r) * kDim + i] =
              static_cast<float>((r - i + 5 * n + h + 34) % 17) / 64;
}

float state_at(const HostTensor& t, std::int64_t n, std::int64_t h, std::int64_t r, std::int64_t i) {
  return t.as<float>()[static_cast<std::size_t>(((n * kVHeads + h) * kDim + r) * kDim + i)];
}

double out_at(const HostTensor& t, std::int64_t token, std::int64_t h, std::int64_t r) {
  return read_as_double(t, static_cast<std::size_t>((token * kVHeads + h) * kDim + r));
}

void expect_matches_model(Op op, std::vector<HostTensor>& in, Impl impl) {
  std::vector<HostTensor> out = run(op, impl, in);
  const Expected e = model(op, in);
  EXPECT_LE(worst_bf16_steps(out[kOut], e.output), 1.05) << "output";
  EXPECT_LE(max_abs_diff(out[kNewState], e.new_state), 2e-6) << "new_state";
}

TEST(GdnDecode, OneStepMatchesHandComputedValues) {
  std::vector<HostTensor> in = blank_inputs(Op::decode, 2);
  fill_case(in, 2, 2);
  std::vector<HostTensor> out = run(Op::decode, Impl::reference, in);
  for (std::int64_t n = 0; n < 2; ++n) {
    for (std::int64_t r = 0; r < kDim; ++r) {
      // k = e_0: old_v = g S[r][0]; only column 0 of the k-last row takes the new value.
      const double v = read_as_double(in[kV], static_cast<std::size_t>((n * kVHeads) * kDim + r));
      const double new_v = 0.5 * v + 0.5 * (0.5 * state_at(in[kState], n, 0, r, 0));
      EXPECT_NEAR(state_at(out[kNewState], n, 0, r, 0), new_v, 1e-6) << n << "," << r;
      for (std::int64_t i = 1; i < kDim; i += 31)
        EXPECT_NEAR(state_at(out[kNewState], n, 0, r, i), 0.5 * state_at(in[kState], n, 0, r, i), 1e-6);
      // q = e_0: out = scale * S'[r][0], rounded to bf16.
      EXPECT_NEAR(out_at(out[kOut], n, 0, r), kScale * new_v, std::fabs(kScale * new_v) * 0x1p-8 + 1e-7);
    }
  }
}

TEST(GdnDecode, EveryHeadMatchesTheFloat64Model) {
  std::vector<HostTensor> in = blank_inputs(Op::decode, 3);
  fill_case(in, 3, 3);
  expect_matches_model(Op::decode, in, Impl::reference);
  expect_matches_model(Op::decode, in, Impl::baseline);
}

TEST(GdnDecode, VHeadsShareQkHeadsByRepeatInterleave) {
  // q of q/k head 1 is zero: v heads 2 and 3 (h / 2 == 1) must output exactly 0, and
  // v head 1 (q/k head 0, not h % 4 == 1) must not.
  std::vector<HostTensor> in = blank_inputs(Op::decode, 1);
  fill_case(in, 1, 1);
  for (std::int64_t i = 0; i < kDim; ++i) set_bf16(in[kQ], static_cast<std::size_t>(kDim + i), 0.0);
  for (Impl impl : {Impl::reference, Impl::baseline}) {
    std::vector<HostTensor> out = run(Op::decode, impl, in);
    double head1 = 0;
    for (std::int64_t r = 0; r < kDim; ++r) {
      EXPECT_EQ(out_at(out[kOut], 0, 2, r), 0.0);
      EXPECT_EQ(out_at(out[kOut], 0, 3, r), 0.0);
      head1 += std::fabs(out_at(out[kOut], 0, 1, r));
    }
    EXPECT_GT(head1, 0.01);
  }
}

TEST(GdnDecode, ScaleZeroMeansOneOverSqrtHeadSize) {
  std::vector<HostTensor> in = blank_inputs(Op::decode, 2);
  fill_case(in, 2, 2);
  const Expected e = model(Op::decode, in);  // scale 1/sqrt(128)
  in[scale_index(Op::decode)].as<float>()[0] = 0.f;
  for (Impl impl : {Impl::reference, Impl::baseline}) {
    std::vector<HostTensor> out = run(Op::decode, impl, in);
    EXPECT_LE(worst_bf16_steps(out[kOut], e.output), 1.05);
  }
}

TEST(GdnPrefill, TwoStepsMatchHandComputedValues) {
  // One sequence of two tokens, zero initial state, head 0: g = beta = 1/2, k = q = e_0:
  //   token 0: S[r][0] = beta v0 = v0 / 2;             out0 = scale v0 / 2
  //   token 1: old = g v0 / 2 = v0 / 4; new = v1 / 2 + v0 / 8 = S[r][0]; out1 = scale new.
  std::vector<HostTensor> in = blank_inputs(Op::prefill, 2, {0, 2});
  fill_case(in, 2, 1);
  std::fill(in[kState].as<float>().begin(), in[kState].as<float>().end(), 0.f);
  for (Impl impl : {Impl::reference, Impl::baseline}) {
    std::vector<HostTensor> out = run(Op::prefill, impl, in);
    for (std::int64_t r = 0; r < kDim; ++r) {
      const double v0 = read_as_double(in[kV], static_cast<std::size_t>(r));
      const double v1 = read_as_double(in[kV], static_cast<std::size_t>(kVHeads * kDim + r));
      const double s = v1 / 2 + v0 / 8;
      EXPECT_DOUBLE_EQ(
          out_at(out[kOut], 0, 0, r),
          static_cast<double>(bf16_to_float(float_to_bf16(static_cast<float>(kScale * v0 / 2)))));
      EXPECT_NEAR(state_at(out[kNewState], 0, 0, r, 0), s, 1e-6);
      EXPECT_EQ(state_at(out[kNewState], 0, 0, r, 1), 0.f);
      EXPECT_NEAR(out_at(out[kOut], 1, 0, r), kScale * s, std::fabs(kScale * s) * 0x1p-8 + 1e-7);
    }
  }
}

TEST(GdnPrefill, TwoStepsOfEveryHeadMatchTheFloat64Model) {
  std::vector<HostTensor> in = blank_inputs(Op::prefill, 2, {0, 2});
  fill_case(in, 2, 1);
  expect_matches_model(Op::prefill, in, Impl::reference);
  expect_matches_model(Op::prefill, in, Impl::baseline);
}

TEST(GdnPrefill, EmptySequenceLeavesAZeroStateAndTheOthersTheirOwn) {
  // Sequences: tokens 0-1, none, token 2. The empty one's new_state is zero although its
  // state is not; the third starts from its own state[2].
  std::vector<HostTensor> in = blank_inputs(Op::prefill, 3, {0, 2, 2, 3});
  fill_case(in, 3, 3);
  for (Impl impl : {Impl::reference, Impl::baseline}) {
    std::vector<HostTensor> out = run(Op::prefill, impl, in);
    for (std::int64_t h = 0; h < kVHeads; ++h)
      for (std::int64_t r = 0; r < kDim; r += 7)
        for (std::int64_t i = 0; i < kDim; i += 5) ASSERT_EQ(state_at(out[kNewState], 1, h, r, i), 0.f);
    const Expected e = model(Op::prefill, in);
    EXPECT_LE(worst_bf16_steps(out[kOut], e.output), 1.05);
    EXPECT_LE(max_abs_diff(out[kNewState], e.new_state), 2e-6);
  }
  // Token 2 alone (a decode of batch 1 from state[2]) gives the same state, bit for bit.
  std::vector<HostTensor> one = blank_inputs(Op::decode, 1);
  for (std::size_t i : {kQ, kK, kV, kA, kB, kState}) {
    const std::size_t part = in[i].numel() / 3;
    for (std::size_t j = 0; j < part; ++j) write_from_double(one[i], j, read_as_double(in[i], 2 * part + j));
  }
  for (std::size_t i : {kALog, kDtBias})
    for (std::size_t j = 0; j < in[i].numel(); ++j) write_from_double(one[i], j, read_as_double(in[i], j));
  const std::vector<HostTensor> prefill = run(Op::prefill, Impl::reference, in);
  const std::vector<HostTensor> decode = run(Op::decode, Impl::reference, one);
  const std::size_t slice = decode[kNewState].numel();
  for (std::size_t j = 0; j < slice; ++j)
    ASSERT_EQ(decode[kNewState].as<float>()[j], prefill[kNewState].as<float>()[2 * slice + j]) << j;
  for (std::size_t j = 0; j < decode[kOut].numel(); ++j)
    ASSERT_EQ(read_as_double(decode[kOut], j), read_as_double(prefill[kOut], 2 * decode[kOut].numel() + j))
        << j;
}

// The operator's tolerance through the real default checker.
CheckVerdict check(const char* name, const std::vector<HostTensor>& reference,
                   const std::vector<HostTensor>& candidate) {
  const OperatorEntry* e = operator_library().find(name);
  EXPECT_NE(e, nullptr);
  const CheckContext ctx{e->definition, reference, candidate, e->tolerance.value(), nullptr};
  return make_output_checker(e->checker)->check(ctx);
}

std::vector<HostTensor> generated(Op op, std::int64_t tokens, std::int64_t seqs, std::uint64_t seed) {
  const OperatorEntry* e = operator_library().find(op == Op::decode ? kDecode : kPrefill);
  Workload w;
  w.uuid = "gdn-test";
  if (op == Op::decode) {
    w.axes.add("batch_size", tokens);
  } else {
    w.axes.add("total_seq_len", tokens);
    w.axes.add("num_seqs", seqs);
    w.axes.add("len_cu_seqlens", seqs + 1);
  }
  w.inputs.add("scale", WorkloadInput{ScalarInput{kScale}, {}});
  return make_inputs(e->definition, w, seed, e->dir);
}

struct Tampering {
  const char* what;
  void (*apply)(std::vector<HostTensor>& in);
};

const Tampering kWrongKernels[] = {
    {"beta = sigmoid(-b)",
     [](std::vector<HostTensor>& in) {
       for (std::size_t i = 0; i < in[kB].numel(); ++i)
         write_from_double(in[kB], i, -read_as_double(in[kB], i));
     }},
    {"decay without dt_bias",
     [](std::vector<HostTensor>& in) {
       std::fill(in[kDtBias].as<float>().begin(), in[kDtBias].as<float>().end(), 0.f);
     }},
    {"scale 10% off",
     [](std::vector<HostTensor>& in) {
       float& s = in[in.size() - 1].as<float>()[0];
       s *= 1.1f;
     }},
};

void expect_tolerance_separates(Op op, std::int64_t tokens, std::int64_t seqs) {
  const char* name = op == Op::decode ? kDecode : kPrefill;
  std::vector<HostTensor> in = generated(op, tokens, seqs, 0x5eed);
  const std::vector<HostTensor> ref = run(op, Impl::reference, in);
  const CheckVerdict ok = check(name, ref, run(op, Impl::baseline, in));
  EXPECT_TRUE(ok.passed) << ok.reason;
  for (const Tampering& t : kWrongKernels) {
    std::vector<HostTensor> wrong_in = generated(op, tokens, seqs, 0x5eed);
    t.apply(wrong_in);
    const CheckVerdict v = check(name, ref, run(op, Impl::reference, wrong_in));
    EXPECT_FALSE(v.passed) << t.what;
    EXPECT_NE(v.reason.find("output"), std::string::npos) << v.reason;
  }
  // One output element off by 2% (a few bf16 steps) is caught too.
  std::vector<HostTensor> bumped = run(op, Impl::reference, in);
  std::size_t big = 0;
  for (std::size_t i = 0; i < bumped[kOut].numel(); ++i)
    if (std::fabs(read_as_double(bumped[kOut], i)) > std::fabs(read_as_double(bumped[kOut], big))) big = i;
  write_from_double(bumped[kOut], big, read_as_double(bumped[kOut], big) * 1.02 + 0.006);
  const CheckVerdict v = check(name, ref, bumped);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.reason.find("'output'"), std::string::npos) << v.reason;
}

TEST(GdnTolerance, DecodeAcceptsTheBaselineAndRejectsWrongGatesAndScale) {
  expect_tolerance_separates(Op::decode, 16, 16);
}

TEST(GdnTolerance, PrefillAcceptsTheBaselineAndRejectsWrongGatesAndScale) {
  expect_tolerance_separates(Op::prefill, 512, 3);
}

}  // namespace
}  // namespace kh::gdn_test
