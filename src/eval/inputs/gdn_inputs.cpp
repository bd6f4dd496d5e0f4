#include "eval/inputs/gdn_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <utility>

#include "error/error.h"
#include "tensor/counter_rng.h"
#include "tensor/float_formats.h"
#include "tensor/random_fill.h"
#include "tensor/standard_normal.h"

namespace kh {

namespace {

constexpr std::int64_t kHeadSize = 128;
constexpr double kStateStd = 0.1;
constexpr double kMinRate = 1.0, kMaxRate = 16.0;  // A = exp(A_log)
constexpr double kMinDt = 1e-3, kMaxDt = 1e-1;     // softplus(dt_bias)
constexpr double kLengthSigma = 1.2;               // spread of the log-normal length weights

void expect(bool ok, const std::string& what) {
  if (!ok) throw Error(Location{"", 0, "gdn inputs"}, what);
}

// Index of the input called `name`, or -1 when the definition has none.
std::ptrdiff_t input_index(const Definition& d, std::string_view name) {
  for (std::size_t i = 0; i < d.inputs.items.size(); ++i)
    if (d.inputs.items[i].first == name) return static_cast<std::ptrdiff_t>(i);
  return -1;
}

void expect_dtype(const HostTensor& t, DType dtype, std::string_view name) {
  expect(t.dtype() == dtype,
         fmt::format("input '{}' is {}, expected {}", name, dtype_name(t.dtype()), dtype_name(dtype)));
}

// Rescales every row of 128 bf16 values (already normal) to unit L2 norm.
void normalise_rows(HostTensor& t, std::string_view name) {
  expect_dtype(t, DType::bfloat16, name);
  expect(t.numel() % kHeadSize == 0, fmt::format("input '{}' is not made of rows of {}", name, kHeadSize));
  std::span<std::uint16_t> x = t.as<std::uint16_t>();
  for (std::size_t row = 0; row < x.size(); row += kHeadSize) {
    float v[kHeadSize];
    double sum = 0;
    for (std::int64_t i = 0; i < kHeadSize; ++i) {
      v[i] = bf16_to_float(x[row + i]);
      sum += static_cast<double>(v[i]) * v[i];
    }
    if (sum == 0) {  // a zero row (never drawn in practice) becomes e_0
      v[0] = 1.0f;
      sum = 1.0;
    }
    const auto inv = static_cast<float>(1.0 / std::sqrt(sum));
    for (std::int64_t i = 0; i < kHeadSize; ++i) x[row + i] = float_to_bf16(v[i] * inv);
  }
}

// Uniform in [lo, hi) in log space, element i of the stream keyed by `key`.
double log_uniform(std::uint64_t key, std::uint64_t i, double lo, double hi) {
  return std::exp(std::log(lo) + unit_double(random_word(key, i)) * (std::log(hi) - std::log(lo)));
}

void fill_A_log(HostTensor& t, std::uint64_t seed) {
  expect_dtype(t, DType::float32, "A_log");
  const std::uint64_t key = stream_key(seed, 0);
  std::span<float> x = t.as<float>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double rate = kMinRate + unit_double(random_word(key, i)) * (kMaxRate - kMinRate);
    x[i] = static_cast<float>(std::log(rate));
  }
}

void fill_dt_bias(HostTensor& t, std::uint64_t seed) {
  expect_dtype(t, DType::float32, "dt_bias");
  const std::uint64_t key = stream_key(seed, 0);
  std::span<float> x = t.as<float>();
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(std::log(std::expm1(log_uniform(key, i, kMinDt, kMaxDt))));
}

void fill_cu_seqlens(HostTensor& t, std::int64_t total, std::uint64_t seed) {
  expect_dtype(t, DType::int64, "cu_seqlens");
  expect(t.numel() >= 1, "input 'cu_seqlens' needs at least one entry");
  const auto num_seqs = static_cast<std::int64_t>(t.numel()) - 1;
  expect(num_seqs > 0 || total == 0, fmt::format("{} tokens cannot be split into 0 sequences", total));
  const std::vector<std::int64_t> lengths = gdn_sequence_lengths(total, num_seqs, seed);
  std::span<std::int64_t> cu = t.as<std::int64_t>();
  cu[0] = 0;
  std::partial_sum(lengths.begin(), lengths.end(), cu.begin() + 1);
}

class GdnInputs final : public StructuredInputs {
 public:
  void generate(const Definition& definition, const AxisValues& /*axes*/, std::uint64_t seed,
                std::vector<HostTensor>& inputs, const std::vector<bool>& random) const override {
    auto owned = [&](std::string_view name) -> HostTensor* {
      const std::ptrdiff_t i = input_index(definition, name);
      if (i < 0 || !random[static_cast<std::size_t>(i)]) return nullptr;
      return &inputs[static_cast<std::size_t>(i)];
    };
    auto seed_of = [&](std::string_view name) {
      return input_seed(seed, static_cast<std::size_t>(input_index(definition, name)));
    };
    for (std::string_view name : {"q", "k"})
      if (HostTensor* t = owned(name)) normalise_rows(*t, name);
    if (HostTensor* t = owned("state")) {
      expect_dtype(*t, DType::float32, "state");
      fill_normal(*t, seed_of("state"), 0.0, kStateStd);
    }
    if (HostTensor* t = owned("A_log")) fill_A_log(*t, seed_of("A_log"));
    if (HostTensor* t = owned("dt_bias")) fill_dt_bias(*t, seed_of("dt_bias"));
    if (HostTensor* t = owned("cu_seqlens")) {
      const std::ptrdiff_t q = input_index(definition, "q");
      expect(q >= 0, "the definition has cu_seqlens but no input 'q' to count tokens");
      fill_cu_seqlens(*t, inputs[static_cast<std::size_t>(q)].shape()[0], seed_of("cu_seqlens"));
    }
  }
};

// Lengths when every sequence gets a token: one each, the rest by log-normal weights
// (floored), and the tokens the flooring left over one by one to random sequences.
std::vector<std::int64_t> skewed_lengths(std::int64_t total, std::int64_t num_seqs, std::uint64_t seed) {
  const NormalStream normal(stream_key(seed, 1), stream_key(seed, 2));
  const std::uint64_t pick = stream_key(seed, 3);
  std::vector<double> weight(static_cast<std::size_t>(num_seqs));
  for (std::size_t i = 0; i < weight.size(); ++i) weight[i] = std::exp(kLengthSigma * normal(i));
  const double sum = std::accumulate(weight.begin(), weight.end(), 0.0);
  const std::int64_t rest = total - num_seqs;
  std::vector<std::int64_t> lengths(weight.size());
  std::int64_t given = 0;
  for (std::size_t i = 0; i < weight.size(); ++i) {
    lengths[i] = 1 + static_cast<std::int64_t>(std::floor(static_cast<double>(rest) * weight[i] / sum));
    given += lengths[i];
  }
  for (std::uint64_t n = 0; given < total; ++n, ++given)
    ++lengths[random_word(pick, n) % static_cast<std::uint64_t>(num_seqs)];
  // Rounding of the weights can overshoot by a token in rare cases: take it back from the longest.
  while (given > total) {
    --*std::max_element(lengths.begin(), lengths.end());
    --given;
  }
  return lengths;
}

// Fewer tokens than sequences: `total` distinct sequences (a random choice) get one token.
std::vector<std::int64_t> sparse_lengths(std::int64_t total, std::int64_t num_seqs, std::uint64_t seed) {
  const std::uint64_t pick = stream_key(seed, 4);
  std::vector<std::int64_t> order(static_cast<std::size_t>(num_seqs));
  std::iota(order.begin(), order.end(), 0);
  for (std::size_t i = order.size(); i > 1; --i)  // Fisher-Yates
    std::swap(order[i - 1], order[random_word(pick, i) % i]);
  std::vector<std::int64_t> lengths(order.size(), 0);
  for (std::int64_t i = 0; i < total; ++i)
    lengths[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = 1;
  return lengths;
}

}  // namespace

std::vector<std::int64_t> gdn_sequence_lengths(std::int64_t total, std::int64_t num_seqs,
                                               std::uint64_t seed) {
  expect(total >= 0 && num_seqs >= 0,
         fmt::format("bad split of {} tokens into {} sequences", total, num_seqs));
  if (num_seqs == 0) return {};
  return total >= num_seqs ? skewed_lengths(total, num_seqs, seed) : sparse_lengths(total, num_seqs, seed);
}

std::shared_ptr<const StructuredInputs> make_gdn_inputs() { return std::make_shared<GdnInputs>(); }

}  // namespace kh
