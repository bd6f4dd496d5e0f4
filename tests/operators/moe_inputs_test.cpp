// The MoE input generator: valid, deterministic data; routing that reaches the local
// experts at the rate the speed-of-light model assumes; non-zero outputs for the CI
// workloads; zero weights only for experts that no token uses.
#include "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048/harness/moe_inputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "eval/speed_of_light.h"
#include "eval/workload_shapes.h"
#include "moe_test_support.h"
#include "tensor/fast_hash.h"
#include "tensor/float_formats.h"
#include "tensor/random_fill.h"

namespace kh::moe_test {
namespace {

// Routing inputs as the harness makes them (generic normal logits, then the generator's
// bias) on a small_problem, whose output column le is non-zero exactly when a token is
// routed to local expert le.
std::vector<HostTensor> routed_small_problem(std::int64_t tokens, int offset, std::uint64_t seed) {
  HostTensor logits(DType::float32, {tokens, kExperts});
  fill_random(logits, input_seed(seed, kLogits));
  const std::span<const float> x = logits.as<float>();
  std::vector<HostTensor> in =
      small_problem(std::vector<float>(x.begin(), x.end()), std::vector<std::uint16_t>(kExperts, 0),
                    std::vector<float>(2 * tokens, 1.0f), offset, 2.5f);
  std::vector<bool> random(in.size(), false);
  random[kBias] = true;
  const Workload w = workload(tokens, offset);
  generate_structured_on_host(*make_moe_inputs(), entry().definition, resolve_axes(entry().definition, w),
                              seed, in, random);
  return in;
}

// Local (token, expert) pairs: the non-zero entries of small_problem's output.
std::size_t local_pairs(const HostTensor& out) {
  const std::vector<double> v = to_float64(out);
  return static_cast<std::size_t>(std::count_if(v.begin(), v.end(), [](double x) { return x != 0.0; }));
}

TEST(MoeInputs, SameSeedSameBytesOtherSeedOtherBytes) {
  const Workload w = workload(2, 64);
  const std::vector<HostTensor> a = generate(w, 11), b = generate(w, 11), c = generate(w, 12);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(hash_bytes(a[i].bytes()), hash_bytes(b[i].bytes())) << "input " << i;
    if (i < kOffset) {
      EXPECT_NE(hash_bytes(a[i].bytes()), hash_bytes(c[i].bytes())) << "input " << i;
    }
  }
}

TEST(MoeInputs, ScalesArePositiveAndRealistic) {
  const std::vector<HostTensor> in = generate(workload(2, 64), 21);
  const double hidden = kHidden, inter = kIntermediate;
  const std::pair<std::size_t, double> scales[] = {{kHiddenScale, 1.0 / 100},
                                                   {kW13Scale, 1.0 / (100 * std::sqrt(hidden))},
                                                   {kW2Scale, 6.0 / (100 * std::sqrt(inter))}};
  for (auto [index, base] : scales) {
    for (float s : in[index].as<float>()) {
      ASSERT_GE(s, base / 2) << "input " << index;
      ASSERT_LT(s, base * 2) << "input " << index;
    }
  }
  EXPECT_EQ(read_as_double(in[kOffset], 0), 64);  // the workload's scalars are kept
  EXPECT_EQ(read_as_double(in[kScaling], 0), 2.5);
}

TEST(MoeInputs, CodesAreFiniteNormalWithAStandardDeviationOf100) {
  const std::vector<HostTensor> in = generate(workload(64, 0), 31);
  for (std::size_t index : {std::size_t{kHidden_}, std::size_t{kW13}, std::size_t{kW2}}) {
    const std::span<const std::uint8_t> codes = in[index].as<std::uint8_t>();
    double squares = 0.0;
    std::size_t counted = 0;
    for (std::size_t i = 0; i < codes.size(); i += 97) {
      ASSERT_NE(codes[i] & 0x7F, 0x7F) << "NaN code in input " << index;
      const double v = e4m3fn_to_float(codes[i]);
      if (v == 0.0 && index != kHidden_) continue;  // an expert no token uses
      squares += v * v;
      ++counted;
    }
    const double std = std::sqrt(squares / static_cast<double>(counted));
    EXPECT_GT(std, 90.0) << "input " << index;
    EXPECT_LT(std, 110.0) << "input " << index;
  }
}

TEST(MoeInputs, BiasGivesEveryGroupTheSameValuesAndTiltsTheLocalOnes) {
  const int offset = 96;
  const std::vector<HostTensor> in = routed_small_problem(4, offset, 41);
  const std::span<const std::uint16_t> b = in[kBias].as<std::uint16_t>();
  std::vector<std::multiset<float>> groups(8);
  for (int e = 0; e < kExperts; ++e) {
    const bool local = e >= offset && e < offset + kLocal;
    groups[e / 32].insert(bf16_to_float(b[e]) - (local ? 0.04f : 0.0f));
  }
  for (int g = 1; g < 8; ++g) {
    auto x = groups[0].begin();
    for (float v : groups[g]) EXPECT_NEAR(v, *x++, 2e-3) << "group " << g;  // bf16 rounding
  }
  EXPECT_GT(*groups[0].rbegin() - *groups[0].begin(), 0.08f);  // a spread of about 0.02 * 2 * 2.2
}

TEST(MoeInputs, LocalPairRateMatchesTheSpeedOfLightModel) {
  const std::int64_t tokens = 4000;
  std::vector<HostTensor> in = routed_small_problem(tokens, 32, 51);
  const double rate = static_cast<double>(local_pairs(reference_output(in))) / static_cast<double>(tokens);
  EXPECT_NEAR(rate, kMoeLocalPairsPerToken, 0.1);
  const AxisValues axes = resolve_axes(entry().definition, workload(tokens, 32));
  const double per_pair = 6.0 * kHidden * kIntermediate + 4.0 * kIntermediate + 2.0 * kHidden;
  const double model_rate =
      evaluate_work(*entry().speed_of_light, axes).flops / (per_pair * static_cast<double>(tokens));
  EXPECT_NEAR(model_rate, kMoeLocalPairsPerToken, 1e-9);
}

TEST(MoeInputs, CiWorkloadsReachALocalExpertForAlmostEverySeed) {
  for (const Workload& w : library().workloads(kName, true)) {
    const AxisValues axes = resolve_axes(entry().definition, w);
    const auto offset = static_cast<int>(
        std::get<ScalarInput>(w.inputs.find("local_expert_offset")->source).value.get<int>());
    int reached = 0;
    const int seeds = 200;
    for (int s = 0; s < seeds; ++s) {
      std::vector<HostTensor> in = routed_small_problem(axes.at("seq_len"), offset, 1000 + s);
      reached += local_pairs(reference_output(in)) > 0 ? 1 : 0;
    }
    EXPECT_GE(reached, seeds * 95 / 100) << "seq_len " << axes.at("seq_len") << " offset " << offset;
  }
}

TEST(MoeInputs, OnlyExpertsNoTokenUsesKeepZeroWeights) {
  const Workload w = workload(3, 160);
  std::vector<HostTensor> in = generate(w, 61);
  // The same routing inputs on a small_problem reveal which local experts are used.
  const std::span<const float> x = in[kLogits].as<float>();
  const std::span<const std::uint16_t> b = in[kBias].as<std::uint16_t>();
  std::vector<HostTensor> probe =
      small_problem(std::vector<float>(x.begin(), x.end()), std::vector<std::uint16_t>(b.begin(), b.end()),
                    std::vector<float>(6, 1.0f), 160, 2.5f);
  const std::vector<double> out = to_float64(reference_output(probe));
  const std::span<const std::uint8_t> w13 = in[kW13].as<std::uint8_t>();
  const std::size_t per_expert = w13.size() / kLocal;
  int used = 0;
  for (int le = 0; le < kLocal; ++le) {
    bool routed = false;
    for (int t = 0; t < 3; ++t) routed |= out[t * kSmallHidden + le] != 0.0;
    const auto slice = w13.subspan(le * per_expert, per_expert);
    const bool filled =
        std::any_of(slice.begin(), slice.begin() + 4096, [](std::uint8_t c) { return c != 0; });
    EXPECT_EQ(filled, routed) << "local expert " << le;
    used += routed ? 1 : 0;
  }
  EXPECT_GT(used, 0);
}

}  // namespace
}  // namespace kh::moe_test
