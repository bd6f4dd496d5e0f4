// The softmax_h4096 input generator: rows of logits at offsets where exp overflows or
// underflows float32 unless the row max is subtracted, deterministic in the seed, and
// leaving data that is not "random" alone.
#include "softmax_h4096/harness/softmax_inputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <vector>

#include "eval/input_generator.h"
#include "eval/operator_library.h"
#include "trace/json_io.h"

namespace kh {
namespace {

constexpr std::int64_t kCols = 4096;

const OperatorEntry& softmax_op() {
  static const OperatorLibrary ops =
      OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  const OperatorEntry* e = ops.find("softmax_h4096");
  if (e == nullptr) throw Error("operators/softmax_h4096 is missing");
  return *e;
}

Workload rows(std::int64_t batch_size) {
  return read_workload(ordered_json::parse(R"({"uuid":"softmax-inputs-test","axes":{"batch_size":)" +
                                           std::to_string(batch_size) +
                                           R"(},"inputs":{"x":{"type":"random"}}})"));
}

std::vector<float> generate(std::int64_t batch_size, std::uint64_t seed) {
  std::vector<HostTensor> inputs = make_inputs(softmax_op().definition, rows(batch_size), seed, {});
  const auto values = inputs.at(0).as<float>();
  return {values.begin(), values.end()};
}

struct RowStats {
  double mean = 0, stddev = 0, max = -INFINITY, min = INFINITY;
};

RowStats stats(const float* row) {
  RowStats s;
  for (std::int64_t c = 0; c < kCols; ++c) {
    s.mean += row[c];
    s.max = std::fmax(s.max, row[c]);
    s.min = std::fmin(s.min, row[c]);
  }
  s.mean /= kCols;
  for (std::int64_t c = 0; c < kCols; ++c) s.stddev += (row[c] - s.mean) * (row[c] - s.mean);
  s.stddev = std::sqrt(s.stddev / kCols);
  return s;
}

TEST(SoftmaxInputs, RowsAreShiftedAndScaledNormals) {
  const std::int64_t batch = 256;
  const std::vector<float> x = generate(batch, 0x5eed);
  int overflowing = 0, underflowing = 0;
  double lowest_mean = 0, highest_mean = 0, smallest_spread = 1e9, largest_spread = 0;
  for (std::int64_t r = 0; r < batch; ++r) {
    const RowStats s = stats(&x[r * kCols]);
    // shift in [-128, 128), scale in [1, 8): the sample mean and spread of 4096 draws
    // land within a few percent of them.
    ASSERT_GE(s.mean, -kSoftmaxMaxShift - 1) << r;
    ASSERT_LE(s.mean, kSoftmaxMaxShift + 1) << r;
    ASSERT_GE(s.stddev, 0.9) << r;
    ASSERT_LE(s.stddev, kSoftmaxMaxScale * 1.1) << r;
    lowest_mean = std::min(lowest_mean, s.mean);
    highest_mean = std::max(highest_mean, s.mean);
    smallest_spread = std::min(smallest_spread, s.stddev);
    largest_spread = std::max(largest_spread, s.stddev);
    overflowing += s.max > 88.8 ? 1 : 0;    // exp(max) = inf in float32
    underflowing += s.max < -87.4 ? 1 : 0;  // exp(x) subnormal or zero on the whole row
  }
  // The whole range is used, and an unstable kernel fails on many rows, not a few.
  EXPECT_LT(lowest_mean, -110);
  EXPECT_GT(highest_mean, 110);
  EXPECT_LT(smallest_spread, 1.5);
  EXPECT_GT(largest_spread, 6);
  EXPECT_GT(overflowing, batch / 20);
  EXPECT_GT(underflowing, batch / 20);
}

TEST(SoftmaxInputs, DeterministicInTheSeed) {
  const std::vector<float> a = generate(37, 42);
  const std::vector<float> b = generate(37, 42);
  const std::vector<float> c = generate(37, 43);
  ASSERT_EQ(a.size(), 37u * kCols);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.size() * sizeof(float)), 0);
  // A row does not depend on how many rows follow it.
  const std::vector<float> longer = generate(64, 42);
  EXPECT_EQ(std::memcmp(a.data(), longer.data(), a.size() * sizeof(float)), 0);
}

TEST(SoftmaxInputs, LeavesInputsThatAreNotRandomAlone) {
  std::vector<HostTensor> inputs;
  inputs.emplace_back(DType::float32, std::vector<std::int64_t>{2, kCols});
  for (float& v : inputs[0].as<float>()) v = 0.5f;
  generate_structured_on_host(*make_softmax_inputs(), softmax_op().definition, {}, 7, inputs, {false});
  for (float v : inputs[0].as<float>()) ASSERT_EQ(v, 0.5f);
}

TEST(SoftmaxInputs, RefusesAnInputItCannotShape) {
  std::vector<HostTensor> inputs;
  inputs.emplace_back(DType::bfloat16, std::vector<std::int64_t>{2, kCols});
  EXPECT_THROW(
      generate_structured_on_host(*make_softmax_inputs(), softmax_op().definition, {}, 7, inputs, {true}),
      Error);
}

}  // namespace
}  // namespace kh
