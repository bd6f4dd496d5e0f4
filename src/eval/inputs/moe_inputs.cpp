#include "eval/inputs/moe_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <span>
#include <string_view>
#include <thread>
#include <vector>

#include "error/error.h"
#include "tensor/counter_rng.h"
#include "tensor/element_access.h"
#include "tensor/float_formats.h"

namespace kh {

namespace {

constexpr double kCodeStd = 100.0;      // standard deviation of the fp8 codes
constexpr double kDownGain = 6.0;       // gemm2 weights: output std of a few units
constexpr double kBiasSpread = 0.02;    // routing_bias: spread inside a group
constexpr double kLocalTilt = 0.04;     // routing_bias: extra for the local experts
constexpr double kScalingFactor = 2.5;  // routed_scaling_factor when it is random
constexpr int kExperts = 256;
constexpr int kGroups = 8;
constexpr int kLocalExperts = 32;

// Stream numbers of the per-input keys, so that two uses of one input's seed differ.
constexpr std::uint64_t kCodeStream = 11;
constexpr std::uint64_t kScaleStream = 12;
constexpr std::uint64_t kBiasStream = 13;
constexpr std::uint64_t kOffsetStream = 14;

// Standard normal CDF.
double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Inverse of normal_cdf by bisection: only used for a few dozen values.
double normal_quantile(double p) {
  double lo = -10.0;
  double hi = 10.0;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// The finite e4m3 codes in increasing order of value (-448 ... 0 ... 448), without -0.
std::vector<std::uint8_t> e4m3_codes_in_order() {
  std::vector<std::uint8_t> codes;
  for (int c = 0x7E; c >= 0x01; --c) codes.push_back(static_cast<std::uint8_t>(0x80 | c));
  for (int c = 0x00; c <= 0x7E; ++c) codes.push_back(static_cast<std::uint8_t>(c));
  return codes;
}

// Entry u is the e4m3 code nearest to kCodeStd * quantile((u + 0.5) / 65536), so a
// uniform 16-bit index draws a rounded normal(0, kCodeStd^2) code (tails to 4.3 sigma).
// Built by walking the rounding boundaries between neighbouring codes upward.
std::array<std::uint8_t, 65536> make_code_table() {
  const std::vector<std::uint8_t> codes = e4m3_codes_in_order();
  std::array<std::uint8_t, 65536> table{};
  std::size_t j = 0;
  for (std::size_t u = 0; u < table.size(); ++u) {
    const double p = (static_cast<double>(u) + 0.5) / 65536.0;
    while (j + 1 < codes.size()) {
      const double boundary = 0.5 * (e4m3fn_to_float(codes[j]) + e4m3fn_to_float(codes[j + 1]));
      if (normal_cdf(boundary / kCodeStd) >= p) break;
      ++j;
    }
    table[u] = codes[j];
  }
  return table;
}

const std::array<std::uint8_t, 65536>& code_table() {
  static const std::array<std::uint8_t, 65536> table = make_code_table();
  return table;
}

// Runs body(begin, end) over [0, n) on the hardware's threads; the split only decides
// who computes an item, never its value.
template <class Body>
void run_in_parallel(std::size_t n, const Body& body) {
  constexpr std::size_t kMinPerThread = std::size_t{1} << 18;
  const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t count = std::clamp<std::size_t>(n / kMinPerThread, 1, threads);
  if (count == 1) return body(std::size_t{0}, n);
  const std::size_t chunk = (n + count - 1) / count;
  std::vector<std::jthread> workers;
  for (std::size_t begin = 0; begin < n; begin += chunk)
    workers.emplace_back([&body, begin, end = std::min(n, begin + chunk)] { body(begin, end); });
}

// fp8 codes, four per random word, for bytes [begin, end) (multiples of 4): byte i
// depends only on (key, i), so filling a part gives the same bytes as filling all.
void fill_codes(HostTensor& t, std::uint64_t key, std::size_t begin, std::size_t end) {
  const std::array<std::uint8_t, 65536>& table = code_table();
  std::byte* const bytes = t.bytes().data();
  run_in_parallel((end - begin) / 4, [&](std::size_t first, std::size_t last) {
    for (std::size_t w = begin / 4 + first; w < begin / 4 + last; ++w) {
      const std::uint64_t r = random_word(key, w);
      const std::array<std::uint8_t, 4> four = {table[r & 0xFFFF], table[(r >> 16) & 0xFFFF],
                                                table[(r >> 32) & 0xFFFF], table[r >> 48]};
      std::memcpy(bytes + w * 4, four.data(), 4);
    }
  });
}

// Selects the top `k` of `score` among the indices where `open` is set (ties: lowest
// index) and clears `open` for them.
template <std::size_t N>
std::vector<int> take_top(const std::array<float, N>& score, std::array<bool, N>& open, int k) {
  std::vector<int> taken;
  for (int i = 0; i < k; ++i) {
    int best = -1;
    for (int e = 0; e < static_cast<int>(N); ++e)
      if (open[e] && (best < 0 || score[e] > score[best])) best = e;
    open[best] = false;
    taken.push_back(best);
  }
  return taken;
}

// Which local experts at least one token is routed to (the definition's no-aux rule:
// top-2 group sums, 4 groups, top-8 experts by sigmoid + bias).
std::vector<bool> experts_in_use(const HostTensor& logits, const HostTensor& bias, std::int64_t offset) {
  constexpr int kGroupSize = kExperts / kGroups;
  std::vector<bool> used(kLocalExperts, false);
  const std::span<const float> x = logits.as<float>();
  const std::span<const std::uint16_t> b = bias.as<std::uint16_t>();
  for (std::size_t t = 0; t < x.size() / kExperts; ++t) {
    std::array<float, kExperts> score{};
    for (int e = 0; e < kExperts; ++e)
      score[e] = 1.0f / (1.0f + std::exp(-x[t * kExperts + e])) + bf16_to_float(b[e]);
    std::array<float, kGroups> group{};
    for (int g = 0; g < kGroups; ++g) {
      std::array<float, kGroupSize> members{};
      std::array<bool, kGroupSize> open{};
      for (int j = 0; j < kGroupSize; ++j) members[j] = score[g * kGroupSize + j];
      open.fill(true);
      for (int j : take_top(members, open, 2)) group[g] += members[j];
    }
    std::array<bool, kGroups> group_open{};
    group_open.fill(true);
    std::array<bool, kExperts> open{};
    for (int g : take_top(group, group_open, 4))
      for (int j = 0; j < kGroupSize; ++j) open[g * kGroupSize + j] = true;
    for (int e : take_top(score, open, 8))
      if (e >= offset && e < offset + kLocalExperts) used[static_cast<std::size_t>(e - offset)] = true;
  }
  return used;
}

// Positive float32 scales base * 2^u, u uniform in [-1, 1): a factor of 4 between
// blocks, so a kernel that applies the wrong block's scale is visibly wrong.
void fill_scales(HostTensor& t, std::uint64_t key, double base) {
  std::span<float> out = t.as<float>();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double u = 2.0 * unit_double(random_word(key, i)) - 1.0;
    out[i] = static_cast<float>(base * std::exp2(u));
  }
}

// Every group gets the same 32 values (normal quantiles), shuffled, so no group is
// favoured by chance; the local experts get kLocalTilt on top.
void fill_bias(HostTensor& t, std::uint64_t key, std::int64_t local_offset) {
  std::array<double, kExperts / kGroups> quantiles{};
  for (std::size_t j = 0; j < quantiles.size(); ++j)
    quantiles[j] = normal_quantile((static_cast<double>(j) + 0.5) / static_cast<double>(quantiles.size()));
  std::span<std::uint16_t> out = t.as<std::uint16_t>();
  std::uint64_t counter = 0;
  for (int g = 0; g < kGroups; ++g) {
    std::array<double, kExperts / kGroups> group = quantiles;
    for (std::size_t j = group.size() - 1; j > 0; --j) {  // Fisher-Yates
      const std::size_t k = random_word(key, counter++) % (j + 1);
      std::swap(group[j], group[k]);
    }
    for (std::size_t j = 0; j < group.size(); ++j) {
      const std::int64_t e = g * static_cast<std::int64_t>(group.size()) + static_cast<std::int64_t>(j);
      const bool local = e >= local_offset && e < local_offset + kLocalExperts;
      out[static_cast<std::size_t>(e)] =
          float_to_bf16(static_cast<float>(kBiasSpread * group[j] + (local ? kLocalTilt : 0.0)));
    }
  }
}

class MoeInputs final : public StructuredInputs {
 public:
  void generate(const Definition& definition, const AxisValues& axes, std::uint64_t seed,
                std::vector<HostTensor>& inputs, const std::vector<bool>& random) const override {
    const Slots s(definition);
    const auto hidden = static_cast<double>(axes.at("hidden_size"));
    const auto intermediate = static_cast<double>(axes.at("intermediate_size"));
    auto key = [&](std::size_t input, std::uint64_t stream) {
      return stream_key(input_seed(seed, input), stream);
    };
    if (random[s.offset]) {
      const auto group = static_cast<double>(random_word(key(s.offset, kOffsetStream), 0) % kGroups);
      write_from_double(inputs[s.offset], 0, group * kLocalExperts);
    }
    if (random[s.scaling]) write_from_double(inputs[s.scaling], 0, kScalingFactor);
    if (random[s.bias]) {
      fill_bias(inputs[s.bias], key(s.bias, kBiasStream),
                static_cast<std::int64_t>(read_as_double(inputs[s.offset], 0)));
    }
    if (random[s.hidden])
      fill_codes(inputs[s.hidden], key(s.hidden, kCodeStream), 0, inputs[s.hidden].nbytes());
    const auto offset = static_cast<std::int64_t>(read_as_double(inputs[s.offset], 0));
    const std::vector<bool> used = experts_in_use(inputs[s.logits], inputs[s.bias], offset);
    for (std::size_t codes : {s.w13, s.w2}) {
      if (!random[codes]) continue;
      const std::size_t per_expert = inputs[codes].nbytes() / kLocalExperts;
      for (std::size_t e = 0; e < kLocalExperts; ++e)
        if (used[e]) fill_codes(inputs[codes], key(codes, kCodeStream), e * per_expert, (e + 1) * per_expert);
    }
    if (random[s.hidden_scale])
      fill_scales(inputs[s.hidden_scale], key(s.hidden_scale, kScaleStream), 1.0 / kCodeStd);
    if (random[s.w13_scale])
      fill_scales(inputs[s.w13_scale], key(s.w13_scale, kScaleStream), 1.0 / (kCodeStd * std::sqrt(hidden)));
    if (random[s.w2_scale]) {
      fill_scales(inputs[s.w2_scale], key(s.w2_scale, kScaleStream),
                  kDownGain / (kCodeStd * std::sqrt(intermediate)));
    }
  }

  [[nodiscard]] bool replaces(std::string_view input) const override {
    return input == "hidden_states" || input == "gemm1_weights" || input == "gemm2_weights";
  }

 private:
  // Positions of the inputs in definition order.
  struct Slots {
    explicit Slots(const Definition& d)
        : logits(index(d, "routing_logits")),
          bias(index(d, "routing_bias")),
          hidden(index(d, "hidden_states")),
          hidden_scale(index(d, "hidden_states_scale")),
          w13(index(d, "gemm1_weights")),
          w13_scale(index(d, "gemm1_weights_scale")),
          w2(index(d, "gemm2_weights")),
          w2_scale(index(d, "gemm2_weights_scale")),
          offset(index(d, "local_expert_offset")),
          scaling(index(d, "routed_scaling_factor")) {}
    std::size_t logits, bias, hidden, hidden_scale, w13, w13_scale, w2, w2_scale, offset, scaling;

    static std::size_t index(const Definition& d, std::string_view name) {
      for (std::size_t i = 0; i < d.inputs.size(); ++i)
        if (d.inputs.items[i].first == name) return i;
      throw Error(Location{"", 0, fmt::format("definition {}: inputs", d.name)},
                  fmt::format("the MoE input generator needs an input named '{}'", name));
    }
  };
};

}  // namespace

std::shared_ptr<const StructuredInputs> make_moe_inputs() { return std::make_shared<MoeInputs>(); }

}  // namespace kh
