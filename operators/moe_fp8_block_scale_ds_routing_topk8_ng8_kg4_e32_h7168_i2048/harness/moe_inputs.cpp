#include "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048/harness/moe_inputs.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string_view>
#include <vector>

#include "error/error.h"
#include "eval/generation_dispatch.h"
#include "tensor/counter_rng.h"
#include "tensor/float_formats.h"

namespace kh {

namespace {

using moe_inputs::kExperts;
using moe_inputs::kGroups;
using moe_inputs::kLocalExperts;

constexpr double kCodeStd = 100.0;      // standard deviation of the fp8 codes
constexpr double kDownGain = 6.0;       // gemm2 weights: output std of a few units
constexpr double kBiasSpread = 0.02;    // routing_bias: spread inside a group
constexpr double kLocalTilt = 0.04;     // routing_bias: extra for the local experts
constexpr double kScalingFactor = 2.5;  // routed_scaling_factor when it is random

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

const std::uint8_t* code_table(GenerationSite& site) {
  static const Fp8NormalCodes codes(kCodeStd);
  return static_cast<const std::uint8_t*>(
      site.table("moe_fp8_codes", codes.data(), Fp8NormalCodes::kEntries));
}

// Every group gets the same 32 values (normal quantiles), shuffled, so no group is
// favoured by chance; the local experts get kLocalTilt on top.
std::vector<std::uint16_t> draw_bias(std::uint64_t key, std::int64_t local_offset) {
  std::array<double, kExperts / kGroups> quantiles{};
  for (std::size_t j = 0; j < quantiles.size(); ++j)
    quantiles[j] = normal_quantile((static_cast<double>(j) + 0.5) / static_cast<double>(quantiles.size()));
  std::vector<std::uint16_t> out(kExperts);
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
  return out;
}

void expect_dtype(const InputSlot& s, DType dtype) {
  if (s.dtype != dtype)
    throw Error(Location{"", 0, "moe inputs"},
                fmt::format("input '{}' is {}, expected {}", s.name, dtype_name(s.dtype), dtype_name(dtype)));
}

// fp8 codes for a whole tensor, or (with `used`) for the experts in use and zeros elsewhere.
void fill_codes(GenerationSite& site, const InputSlot& s, std::uint64_t key, const std::uint32_t* used) {
  expect_dtype(s, DType::float8_e4m3fn);
  const std::uint64_t words = s.bytes / 4;  // every dimension here is a multiple of 4
  const std::uint64_t per_expert = used != nullptr ? words / kLocalExperts : words;
  const moe_inputs::CodeStep step{s.as<std::uint32_t>(), code_table(site), key, used, per_expert};
  if (used != nullptr && !site.on_device() && s.zeroed) {
    // Host tensors start zeroed: only the experts in use need codes (a one-token set then
    // costs ~90 MB of codes instead of 1.4 GB of writes).
    for (std::uint64_t e = 0; e < kLocalExperts; ++e) {
      if (used[e] == 0) continue;
      run_steps_on_host(per_expert, [&step, first = e * per_expert](std::uint64_t k) { step(first + k); });
    }
    return;
  }
  run_steps(site, words, step, KH_DEVICE_LAUNCH(moe_inputs::launch_codes));
}

void fill_scales(GenerationSite& site, const InputSlot& s, std::uint64_t key, double base) {
  expect_dtype(s, DType::float32);
  run_steps(site, s.numel, moe_inputs::ScaleStep{s.as<float>(), key, base},
            KH_DEVICE_LAUNCH(moe_inputs::launch_scales));
}

class MoeInputs final : public StructuredInputs {
 public:
  void generate(const InputRequest& request, GenerationSite& site,
                std::vector<InputSlot>& inputs) const override {
    auto in = [&](std::string_view name) -> InputSlot& {
      return input_named(inputs, name, "the MoE input generator");
    };
    auto key = [&](InputSlot& s, std::uint64_t stream) {
      return stream_key(input_seed(request.seed, static_cast<std::size_t>(&s - inputs.data())), stream);
    };
    const auto hidden = static_cast<double>(request.axes.at("hidden_size"));
    const auto intermediate = static_cast<double>(request.axes.at("intermediate_size"));
    InputSlot& offset = in("local_expert_offset");
    if (offset.random)
      offset.scalar_value =
          static_cast<double>(random_word(key(offset, kOffsetStream), 0) % kGroups) * kLocalExperts;
    InputSlot& scaling = in("routed_scaling_factor");
    if (scaling.random) scaling.scalar_value = kScalingFactor;
    const auto local_offset = static_cast<std::int64_t>(offset.scalar_value);
    InputSlot& bias = in("routing_bias");
    expect_dtype(bias, DType::bfloat16);
    if (bias.random) {
      const std::vector<std::uint16_t> values = draw_bias(key(bias, kBiasStream), local_offset);
      site.upload(bias.data, values.data(), values.size() * sizeof(std::uint16_t));
    }
    InputSlot& hidden_states = in("hidden_states");
    if (hidden_states.random) fill_codes(site, hidden_states, key(hidden_states, kCodeStream), nullptr);
    InputSlot& logits = in("routing_logits");
    expect_dtype(logits, DType::float32);
    auto* used = static_cast<std::uint32_t*>(site.scratch(kLocalExperts * sizeof(std::uint32_t)));
    const moe_inputs::RoutingStep routing{logits.as<float>(), bias.as<std::uint16_t>(), local_offset, used};
    // One host thread: tokens mark experts in a shared mask.
    run_steps(site, logits.numel / kExperts, routing, KH_DEVICE_LAUNCH(moe_inputs::launch_routing),
              ~std::size_t{0});
    for (std::string_view name : {"gemm1_weights", "gemm2_weights"}) {
      InputSlot& w = in(name);
      if (w.random) fill_codes(site, w, key(w, kCodeStream), used);
    }
    InputSlot& hidden_scale = in("hidden_states_scale");
    if (hidden_scale.random) fill_scales(site, hidden_scale, key(hidden_scale, kScaleStream), 1.0 / kCodeStd);
    InputSlot& w13_scale = in("gemm1_weights_scale");
    if (w13_scale.random)
      fill_scales(site, w13_scale, key(w13_scale, kScaleStream), 1.0 / (kCodeStd * std::sqrt(hidden)));
    InputSlot& w2_scale = in("gemm2_weights_scale");
    if (w2_scale.random)
      fill_scales(site, w2_scale, key(w2_scale, kScaleStream),
                  kDownGain / (kCodeStd * std::sqrt(intermediate)));
  }

  [[nodiscard]] bool replaces(std::string_view input) const override {
    return input == "hidden_states" || input == "gemm1_weights" || input == "gemm2_weights" ||
           input == "routing_bias" || input == "hidden_states_scale" || input == "gemm1_weights_scale" ||
           input == "gemm2_weights_scale";
  }
};

}  // namespace

std::shared_ptr<const StructuredInputs> make_moe_inputs() { return std::make_shared<MoeInputs>(); }

void register_harness_moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048() {
  register_structured_inputs("moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048",
                             make_moe_inputs());
}

}  // namespace kh
