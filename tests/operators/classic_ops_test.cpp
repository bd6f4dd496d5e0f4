// Known answers for the CPU references of the classic operators: gemm_n4096_k4096,
// rmsnorm_h4096 and softmax_h4096. Each case is either small enough to check by hand or
// recomputed here in float64, at the definition's shapes. Each operator also shows that
// its operator.json tolerance rejects a realistic wrong output. The references are the
// harness's ground truth; these tests are what makes them trustworthy.
#include <gtest/gtest.h>
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "eval/check/output_checker.h"
#include "eval/operator_library.h"
#include "tensor/float_formats.h"
#include "tensor/host_tensor.h"
#include "tensor/random_fill.h"

void gemm_n4096_k4096_reference(const DLTensor* A, const DLTensor* B, DLTensor* C, kh_stream_t stream);
void rmsnorm_h4096_reference(const DLTensor* hidden_states, const DLTensor* weight, DLTensor* output,
                             kh_stream_t stream);
void softmax_h4096_reference(const DLTensor* x, DLTensor* y, kh_stream_t stream);

namespace kh {
namespace {

constexpr std::int64_t kDim = 4096;  // N = K of the gemm; hidden_size of rmsnorm and softmax

const OperatorLibrary& library() {
  static const OperatorLibrary ops =
      OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  return ops;
}

// The operator's own checker and operator.json tolerance on its single output.
CheckVerdict check(const std::string& op, const HostTensor& reference, const HostTensor& candidate) {
  const OperatorEntry* entry = library().find(op);
  EXPECT_NE(entry, nullptr) << op;
  std::vector<HostTensor> ref;
  ref.push_back(reference.clone());
  std::vector<HostTensor> cand;
  cand.push_back(candidate.clone());
  const CheckContext context{
      entry->definition, ref, cand, entry->tolerance.value_or(Tolerance{}),
      []() -> const std::vector<HostTensor>& { throw Error("inputs are not needed"); }};
  return make_output_checker(entry->checker)->check(context);
}

// Distance between neighbouring float16 (or bfloat16: 7 mantissa bits) values around v.
double ulp(double v, int mantissa_bits) {
  const double magnitude = std::fmax(std::fabs(v), 0x1p-14);
  return std::ldexp(1.0, std::ilogb(magnitude) - mantissa_bits);
}

// ---- gemm_n4096_k4096 ------------------------------------------------------------

struct Gemm {
  HostTensor a, b, c;
  Gemm(std::int64_t m, std::int64_t n, std::int64_t k)
      : a(DType::float16, {m, k}), b(DType::float16, {n, k}), c(DType::float16, {m, n}) {}
  void set_a(std::int64_t m, std::int64_t k, float v) {
    a.as<std::uint16_t>()[m * a.shape()[1] + k] = float_to_f16(v);
  }
  void set_b(std::int64_t n, std::int64_t k, float v) {
    b.as<std::uint16_t>()[n * b.shape()[1] + k] = float_to_f16(v);
  }
  float b_at(std::int64_t n, std::int64_t k) const {
    return f16_to_float(b.as<std::uint16_t>()[n * b.shape()[1] + k]);
  }
  float c_at(std::int64_t m, std::int64_t n) const {
    return f16_to_float(c.as<std::uint16_t>()[m * c.shape()[1] + n]);
  }
  // Row r of a float16 matrix as floats, for the float64 loops below.
  static std::vector<float> row(const HostTensor& t, std::int64_t r) {
    const std::int64_t cols = t.shape()[1];
    std::vector<float> out(static_cast<std::size_t>(cols));
    for (std::int64_t i = 0; i < cols; ++i) out[i] = f16_to_float(t.as<std::uint16_t>()[r * cols + i]);
    return out;
  }
  void run() {
    DLTensor da = a.dlpack_view(), db = b.dlpack_view(), dc = c.dlpack_view();
    gemm_n4096_k4096_reference(&da, &db, &dc, nullptr);
  }
};

TEST(GemmReference, TinyProductByHand) {
  Gemm g(2, 3, 4);
  const float a[2][4] = {{1, 2, 3, 4}, {0.5f, -1, 0, 2}};
  const float b[3][4] = {{1, 0, 0, 0}, {1, 1, 1, 1}, {0, 0.25f, 0, -2}};
  for (int k = 0; k < 4; ++k) {
    for (int m = 0; m < 2; ++m) g.set_a(m, k, a[m][k]);
    for (int n = 0; n < 3; ++n) g.set_b(n, k, b[n][k]);
  }
  g.run();
  const float expected[2][3] = {{1, 10, -7.5f}, {0.5f, 1.5f, -4.25f}};  // C = A @ B^T
  for (int m = 0; m < 2; ++m)
    for (int n = 0; n < 3; ++n) EXPECT_EQ(g.c_at(m, n), expected[m][n]) << m << "," << n;
}

TEST(GemmReference, OneHotRowsOfASelectColumnsOfB) {
  // Row m of A is one at column k_m and zero elsewhere, so C[m, n] = B[n, k_m] exactly.
  const std::int64_t hot[3] = {0, 1234, kDim - 1};
  Gemm g(3, kDim, kDim);
  fill_normal(g.b, 11);
  for (int m = 0; m < 3; ++m) g.set_a(m, hot[m], 1.0f);
  g.run();
  for (int m = 0; m < 3; ++m) {
    for (std::int64_t n = 0; n < kDim; ++n) ASSERT_EQ(g.c_at(m, n), g.b_at(n, hot[m])) << m << "," << n;
  }
}

TEST(GemmReference, LargeSumsAreExactAndOverflowToInfinity) {
  // B is all ones, so C[m, n] = 4096 * a_m: 4096 and 63488 are float16 values, 65536 is
  // past the largest (65504) and becomes infinity, as a float32 -> float16 cast does.
  const float a_value[4] = {1.0f, 15.5f, 16.0f, -16.0f};
  const float expected[4] = {4096.0f, 63488.0f, INFINITY, -INFINITY};
  Gemm g(4, kDim, kDim);
  for (std::int64_t i = 0; i < kDim * kDim; ++i) g.b.as<std::uint16_t>()[i] = float_to_f16(1.0f);
  for (int m = 0; m < 4; ++m)
    for (std::int64_t k = 0; k < kDim; ++k) g.set_a(m, k, a_value[m]);
  g.run();
  for (int m = 0; m < 4; ++m) {
    EXPECT_EQ(g.c_at(m, 0), expected[m]) << m;
    EXPECT_EQ(g.c_at(m, kDim - 1), expected[m]) << m;
  }
}

TEST(GemmReference, MatchesTheFloat64ProductWithinHalfAnUlp) {
  Gemm g(2, kDim, kDim);
  fill_normal(g.a, 21);
  fill_normal(g.b, 22);
  g.run();
  double worst = 0;
  for (std::int64_t m = 0; m < 2; ++m) {
    const std::vector<float> a = Gemm::row(g.a, m);
    for (std::int64_t n = 0; n < kDim; ++n) {
      const std::vector<float> b = Gemm::row(g.b, n);
      double exact = 0;
      for (std::int64_t k = 0; k < kDim; ++k) exact += static_cast<double>(a[k]) * b[k];
      // Float16 rounding (half an ulp) plus float32 accumulation (~1e-4 at |C| ~ 64).
      const double error = std::fabs(g.c_at(m, n) - exact);
      const double larger = std::fmax(std::fabs(exact), std::fabs(g.c_at(m, n)));
      ASSERT_LE(error, 0.5 * ulp(larger, 10) + 1e-3)
          << m << "," << n << ": " << g.c_at(m, n) << " vs " << exact;
      worst = std::fmax(worst, error);
    }
  }
  EXPECT_GT(worst, 0) << "random products should round somewhere";
}

TEST(GemmReference, ToleranceRejectsHalfPrecisionAccumulation) {
  Gemm g(1, kDim, kDim);
  fill_normal(g.a, 31);
  fill_normal(g.b, 32);
  g.run();
  EXPECT_TRUE(check("gemm_n4096_k4096", g.c, g.c).passed);
  // A kernel that keeps its running sums in float16: each addition rounds to the sum's
  // ulp (0.03 at |sum| ~ 64), ~1% error after 4096 terms.
  HostTensor half_sums(DType::float16, {1, kDim});
  const std::vector<float> a = Gemm::row(g.a, 0);
  for (std::int64_t n = 0; n < kDim; ++n) {
    const std::vector<float> b = Gemm::row(g.b, n);
    float sum = 0;
    for (std::int64_t k = 0; k < kDim; ++k) sum = f16_to_float(float_to_f16(sum + a[k] * b[k]));
    half_sums.as<std::uint16_t>()[n] = float_to_f16(sum);
  }
  const CheckVerdict v = check("gemm_n4096_k4096", g.c, half_sums);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.reason.find("output 'C'"), std::string::npos) << v.reason;
  // One element 2% off.
  HostTensor tampered = g.c.clone();
  tampered.as<std::uint16_t>()[7] = float_to_f16(g.c_at(0, 7) * 1.02f + 0.05f);
  EXPECT_FALSE(check("gemm_n4096_k4096", g.c, tampered).passed);
}

// ---- rmsnorm_h4096 ---------------------------------------------------------------

struct RmsNorm {
  HostTensor x, w, y;
  explicit RmsNorm(std::int64_t rows)
      : x(DType::bfloat16, {rows, kDim}), w(DType::bfloat16, {kDim}), y(DType::bfloat16, {rows, kDim}) {}
  float x_at(std::int64_t r, std::int64_t c) const {
    return bf16_to_float(x.as<std::uint16_t>()[r * kDim + c]);
  }
  float w_at(std::int64_t c) const { return bf16_to_float(w.as<std::uint16_t>()[c]); }
  float y_at(std::int64_t r, std::int64_t c) const {
    return bf16_to_float(y.as<std::uint16_t>()[r * kDim + c]);
  }
  void run() {
    DLTensor dx = x.dlpack_view(), dw = w.dlpack_view(), dy = y.dlpack_view();
    rmsnorm_h4096_reference(&dx, &dw, &dy, nullptr);
  }
};

TEST(RmsNormReference, ConstantRowGivesTheWeight) {
  // x = 2 everywhere: mean(x^2) = 4, so y = w * 2 / sqrt(4 + 1e-5) = w * (1 - 1.25e-6),
  // which rounds back to w in bfloat16.
  RmsNorm r(1);
  for (std::int64_t c = 0; c < kDim; ++c) {
    r.x.as<std::uint16_t>()[c] = float_to_bf16(2.0f);
    r.w.as<std::uint16_t>()[c] = float_to_bf16(0.25f * static_cast<float>(c % 9) - 1.0f);
  }
  r.run();
  for (std::int64_t c = 0; c < kDim; ++c) ASSERT_EQ(r.y_at(0, c), r.w_at(c)) << c;
}

TEST(RmsNormReference, ZeroRowStaysZero) {
  // eps keeps 1 / sqrt(0 + 1e-5) finite: zeros in, zeros out, no NaN.
  RmsNorm r(1);
  fill_normal(r.w, 41);
  r.run();
  for (std::int64_t c = 0; c < kDim; ++c) ASSERT_EQ(r.y_at(0, c), 0.0f) << c;
}

TEST(RmsNormReference, MatchesFloat64WithinOneUlp) {
  RmsNorm r(3);
  fill_normal(r.x, 51);
  fill_normal(r.w, 52);
  for (std::int64_t c = 0; c < kDim; ++c) {  // row 2 ten times larger: the scale must cancel
    r.x.as<std::uint16_t>()[2 * kDim + c] = float_to_bf16(10 * r.x_at(2, c));
  }
  r.run();
  for (std::int64_t row = 0; row < 3; ++row) {
    double sum = 0;
    for (std::int64_t c = 0; c < kDim; ++c) sum += static_cast<double>(r.x_at(row, c)) * r.x_at(row, c);
    const double inv_rms = 1 / std::sqrt(sum / kDim + 1e-5);
    for (std::int64_t c = 0; c < kDim; ++c) {
      const double exact = r.x_at(row, c) * inv_rms * r.w_at(c);
      const double larger = std::fmax(std::fabs(exact), std::fabs(r.y_at(row, c)));
      ASSERT_LE(std::fabs(r.y_at(row, c) - exact), ulp(larger, 7)) << row << "," << c;
    }
  }
}

TEST(RmsNormReference, ToleranceRejectsAMissingWeightAndATamperedElement) {
  RmsNorm r(2);
  fill_normal(r.x, 61);
  fill_normal(r.w, 62);
  r.run();
  EXPECT_TRUE(check("rmsnorm_h4096", r.y, r.y).passed);
  RmsNorm unweighted(2);
  unweighted.x = r.x.clone();
  for (std::int64_t c = 0; c < kDim; ++c) unweighted.w.as<std::uint16_t>()[c] = float_to_bf16(1.0f);
  unweighted.run();
  EXPECT_FALSE(check("rmsnorm_h4096", r.y, unweighted.y).passed);
  // Four bfloat16 ulps (1.5% to 3%) on one element of magnitude above 1.
  std::int64_t index = 0;
  while (std::fabs(r.y_at(0, index)) < 1) ++index;
  HostTensor tampered = r.y.clone();
  tampered.as<std::uint16_t>()[index] = static_cast<std::uint16_t>(tampered.as<std::uint16_t>()[index] + 4);
  const CheckVerdict v = check("rmsnorm_h4096", r.y, tampered);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.reason.find("flat index " + std::to_string(index)), std::string::npos) << v.reason;
}

// ---- softmax_h4096 ---------------------------------------------------------------

struct Softmax {
  HostTensor x, y;
  explicit Softmax(std::int64_t rows) : x(DType::float32, {rows, kDim}), y(DType::float32, {rows, kDim}) {}
  float& x_at(std::int64_t r, std::int64_t c) { return x.as<float>()[r * kDim + c]; }
  float y_at(std::int64_t r, std::int64_t c) const { return y.as<float>()[r * kDim + c]; }
  void run() {
    DLTensor dx = x.dlpack_view(), dy = y.dlpack_view();
    softmax_h4096_reference(&dx, &dy, nullptr);
  }
};

// softmax of one row in float64, the textbook way.
std::vector<double> softmax64(const std::vector<double>& row) {
  double max = row[0];
  for (double v : row) max = std::fmax(max, v);
  double sum = 0;
  for (double v : row) sum += std::exp(v - max);
  std::vector<double> out;
  for (double v : row) out.push_back(std::exp(v - max) / sum);
  return out;
}

TEST(SoftmaxReference, EqualValuesGiveTheUniformDistribution) {
  Softmax s(2);
  for (std::int64_t c = 0; c < kDim; ++c) {
    s.x_at(0, c) = 3.7f;
    s.x_at(1, c) = -250.0f;
  }
  s.run();
  for (std::int64_t r = 0; r < 2; ++r)
    for (std::int64_t c = 0; c < kDim; ++c) ASSERT_EQ(s.y_at(r, c), 0x1p-12f) << r << "," << c;  // 1 / 4096
}

TEST(SoftmaxReference, OneLargeValueTakesMostOfTheMass) {
  // x = 0 except x[j] = 10: y[j] = e^10 / (e^10 + 4095) ~ 0.843, the rest 1 / (e^10 + 4095).
  const std::int64_t j = 777;
  Softmax s(1);
  s.x_at(0, j) = 10.0f;
  s.run();
  const double denominator = std::exp(10.0) + (kDim - 1);
  EXPECT_NEAR(s.y_at(0, j), std::exp(10.0) / denominator, 1e-7);
  for (std::int64_t c = 0; c < kDim; ++c) {
    if (c == j) continue;
    ASSERT_NEAR(s.y_at(0, c), 1 / denominator, 1e-6 / denominator) << c;
  }
}

TEST(SoftmaxReference, HugeOffsetsAreNumericallyStable) {
  // exp(1000) overflows and exp(-1000) underflows even in float64, so only a kernel that
  // subtracts the row max gets these rows right. Softmax is shift-invariant: both rows
  // must equal the softmax of the pattern alone.
  Softmax s(2);
  std::vector<double> pattern;
  for (std::int64_t c = 0; c < kDim; ++c) {
    pattern.push_back(0.5 * static_cast<double>(c % 13) - 3);
    s.x_at(0, c) = static_cast<float>(1000 + pattern.back());
    s.x_at(1, c) = static_cast<float>(-1000 + pattern.back());
  }
  s.run();
  const std::vector<double> expected = softmax64(pattern);
  for (std::int64_t r = 0; r < 2; ++r) {
    for (std::int64_t c = 0; c < kDim; ++c) {
      ASSERT_TRUE(std::isfinite(s.y_at(r, c))) << r << "," << c;
      ASSERT_NEAR(s.y_at(r, c), expected[c], 1e-6 * expected[c]) << r << "," << c;
    }
  }
}

TEST(SoftmaxReference, MatchesFloat64AndRowsSumToOne) {
  Softmax s(3);
  fill_normal(s.x, 71, 0.0, 4.0);
  s.run();
  for (std::int64_t r = 0; r < 3; ++r) {
    std::vector<double> row;
    for (std::int64_t c = 0; c < kDim; ++c) row.push_back(s.x_at(r, c));
    const std::vector<double> expected = softmax64(row);
    double total = 0;
    for (std::int64_t c = 0; c < kDim; ++c) {
      ASSERT_NEAR(s.y_at(r, c), expected[c], 1e-6 * expected[c]) << r << "," << c;
      total += s.y_at(r, c);
    }
    EXPECT_NEAR(total, 1.0, 1e-5) << r;
  }
}

TEST(SoftmaxReference, ToleranceRejectsLoweredPrecisionATamperedMaxAndOverflow) {
  Softmax s(2);
  fill_normal(s.x, 81, 0.0, 3.0);
  s.run();
  EXPECT_TRUE(check("softmax_h4096", s.y, s.y).passed);
  HostTensor as_bf16 = s.y.clone();  // probabilities stored at bfloat16 precision
  for (float& v : as_bf16.as<float>()) v = bf16_to_float(float_to_bf16(v));
  EXPECT_FALSE(check("softmax_h4096", s.y, as_bf16).passed);
  std::int64_t argmax = 0;
  for (std::int64_t c = 0; c < kDim; ++c) argmax = s.y_at(0, c) > s.y_at(0, argmax) ? c : argmax;
  HostTensor tampered = s.y.clone();
  tampered.as<float>()[argmax] *= 1.001f;
  EXPECT_FALSE(check("softmax_h4096", s.y, tampered).passed);
  // Without the max subtraction a row at offset 100 overflows: inf / inf = NaN.
  Softmax shifted(1);
  for (std::int64_t c = 0; c < kDim; ++c) shifted.x_at(0, c) = 100.0f + s.x_at(0, c);
  shifted.run();
  HostTensor unstable = shifted.y.clone();
  float sum = 0;
  for (std::int64_t c = 0; c < kDim; ++c) sum += std::exp(shifted.x_at(0, c));
  for (std::int64_t c = 0; c < kDim; ++c) unstable.as<float>()[c] = std::exp(shifted.x_at(0, c)) / sum;
  const CheckVerdict v = check("softmax_h4096", shifted.y, unstable);
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(v.non_finite) << v.reason;
}

}  // namespace
}  // namespace kh
