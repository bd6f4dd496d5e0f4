// The gated delta rule's structured inputs: unit-norm q and k rows, realistic gate
// parameters, a small state, valid cu_seqlens (empty sequences only when there are
// more sequences than tokens), determinism in the seed, and a state that stays bounded
// over a long sequence (where unnormalised keys make it explode).
#include "gdn_decode_qk4_v8_d128_k_last/harness/gdn_inputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "gdn_cases.h"

namespace kh::gdn_test {
namespace {

std::vector<HostTensor> generate(Op op, std::int64_t tokens, std::int64_t seqs, std::uint64_t seed) {
  const OperatorEntry* e = operator_library().find(op == Op::decode ? kDecode : kPrefill);
  Workload w;
  w.uuid = "gdn-inputs-test";
  if (op == Op::decode) {
    w.axes.add("batch_size", tokens);
  } else {
    w.axes.add("total_seq_len", tokens);
    w.axes.add("num_seqs", seqs);
    w.axes.add("len_cu_seqlens", seqs + 1);
  }
  w.inputs.add("scale", WorkloadInput{ScalarInput{0.0}, {}});
  return make_inputs(e->definition, w, seed, e->dir);
}

void expect_unit_rows(const HostTensor& t) {
  const std::vector<double> x = to_float64(t);
  ASSERT_EQ(x.size() % kDim, 0u);
  for (std::size_t row = 0; row < x.size(); row += kDim) {
    double sum = 0;
    for (std::int64_t i = 0; i < kDim; ++i) sum += x[row + i] * x[row + i];
    ASSERT_NEAR(std::sqrt(sum), 1.0, 4e-3) << "row " << row / kDim;  // bf16 rounding of each element
  }
}

std::vector<std::int64_t> cu_of(const HostTensor& t) {
  std::vector<std::int64_t> cu(t.as<std::int64_t>().begin(), t.as<std::int64_t>().end());
  return cu;
}

TEST(GdnInputs, QueriesAndKeysHaveUnitNormRows) {
  for (Op op : {Op::decode, Op::prefill}) {
    const std::vector<HostTensor> in = generate(op, 33, 4, 7);
    expect_unit_rows(in[kQ]);
    expect_unit_rows(in[kK]);
  }
}

TEST(GdnInputs, GateParametersAndStateAreRealistic) {
  const std::vector<HostTensor> in = generate(Op::decode, 64, 64, 11);
  for (float x : in[kALog].as<float>()) {
    EXPECT_GE(x, 0.f);                     // A = exp(A_log) >= 1
    EXPECT_LE(x, std::log(16.f) + 1e-6f);  // A <= 16
  }
  for (float x : in[kDtBias].as<float>()) {  // softplus(dt_bias) = dt in [1e-3, 1e-1]
    const double dt = std::log1p(std::exp(static_cast<double>(x)));
    EXPECT_GE(dt, 1e-3 * 0.999);
    EXPECT_LE(dt, 1e-1 * 1.001);
  }
  const std::vector<double> s = to_float64(in[kState]);
  const double mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  double var = 0;
  for (double x : s) var += (x - mean) * (x - mean);
  EXPECT_NEAR(std::sqrt(var / static_cast<double>(s.size())), 0.1, 0.002);
  EXPECT_NEAR(mean, 0.0, 0.001);
  // v, a and b keep the generic N(0, 1) values.
  const std::vector<double> v = to_float64(in[kV]);
  double vv = 0;
  for (double x : v) vv += x * x;
  EXPECT_NEAR(std::sqrt(vv / static_cast<double>(v.size())), 1.0, 0.02);
  EXPECT_EQ(in[scale_index(Op::decode)].as<float>()[0], 0.f) << "the workload's scalar is untouched";
}

TEST(GdnInputs, CuSeqlensIsAValidPartitionOfTheTokens) {
  const std::pair<std::int64_t, std::int64_t> cases[] = {{6, 8},    {6, 2},     {6, 6},    {1, 1}, {37, 1},
                                                         {190, 57}, {8192, 57}, {8192, 1}, {2, 40}};
  for (const auto& [total, seqs] : cases) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const std::vector<HostTensor> in = generate(Op::prefill, total, seqs, seed);
      const std::vector<std::int64_t> cu = cu_of(in[kCuSeqlens]);
      ASSERT_EQ(static_cast<std::int64_t>(cu.size()), seqs + 1);
      EXPECT_EQ(cu.front(), 0);
      EXPECT_EQ(cu.back(), total) << "total_seq_len == cu_seqlens[-1]";
      std::int64_t empty = 0;
      for (std::size_t i = 1; i < cu.size(); ++i) {
        ASSERT_GE(cu[i], cu[i - 1]) << total << "/" << seqs;
        empty += cu[i] == cu[i - 1];
      }
      // Empty sequences exactly when they must be: more sequences than tokens.
      EXPECT_EQ(empty, std::max<std::int64_t>(0, seqs - total)) << total << "/" << seqs;
    }
  }
}

TEST(GdnInputs, SequenceLengthsAreSkewedWithSingleTokenOnes) {
  const std::vector<std::int64_t> lengths = gdn_sequence_lengths(300, 57, 42);
  ASSERT_EQ(lengths.size(), 57u);
  EXPECT_EQ(std::accumulate(lengths.begin(), lengths.end(), std::int64_t{0}), 300);
  EXPECT_EQ(*std::min_element(lengths.begin(), lengths.end()), 1);
  EXPECT_GE(*std::max_element(lengths.begin(), lengths.end()), 3 * 300 / 57);
  EXPECT_TRUE(gdn_sequence_lengths(0, 0, 1).empty());
}

TEST(GdnInputs, AreDeterministicInTheSeed) {
  for (Op op : {Op::decode, Op::prefill}) {
    const std::vector<HostTensor> a = generate(op, 40, 5, 123), b = generate(op, 40, 5, 123);
    const std::vector<HostTensor> c = generate(op, 40, 5, 124);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const auto x = a[i].bytes(), y = b[i].bytes(), z = c[i].bytes();
      EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << "input " << i;
      if (i == scale_index(op)) continue;  // the workload's scalar, not generated
      EXPECT_FALSE(std::equal(x.begin(), x.end(), z.begin(), z.end())) << "input " << i;
    }
  }
}

double max_abs(const HostTensor& t) {
  double m = 0;
  for (double x : to_float64(t))
    m = std::isfinite(x) && std::isfinite(m) ? std::fmax(m, std::fabs(x)) : INFINITY;
  return m;
}

TEST(GdnInputs, KeepTheStateBoundedOverALongSequence) {
  std::vector<HostTensor> in = generate(Op::prefill, 1024, 1, 99);
  const std::vector<HostTensor> out = run(Op::prefill, Impl::baseline, in);
  EXPECT_LT(max_abs(out[kNewState]), 3.0);
  EXPECT_LT(max_abs(out[kOut]), 0.5);
  // The same data with keys of norm 4 instead of 1: I - beta k k^T stretches the state
  // and it grows without bound, which is why the generator normalises them.
  std::vector<HostTensor> wild = generate(Op::prefill, 256, 1, 99);
  for (std::size_t i = 0; i < wild[kK].numel(); ++i)
    write_from_double(wild[kK], i, 4 * read_as_double(wild[kK], i));
  EXPECT_GT(max_abs(run(Op::prefill, Impl::baseline, wild)[kNewState]), 1e6);
}

}  // namespace
}  // namespace kh::gdn_test
