// The steps of the MoE generator (moe_inputs.h) shared by the host twin and the device
// kernels: the routing that decides which local experts get weights, fp8 codes from a
// normal-quantile table, and the block scales.
#pragma once

#include <cstdint>

#include "tensor/counter_rng.h"
#include "tensor/fp8_normal_codes.h"
#include "tensor/portable/float_encode_steps.h"
#include "tensor/portable/portable_math.h"

namespace kh::moe_inputs {

inline constexpr int kExperts = 256;
inline constexpr int kGroups = 8;
inline constexpr int kGroupSize = kExperts / kGroups;
inline constexpr int kLocalExperts = 32;
inline constexpr double kLn2 = 0.6931471805599453;

// Index of the largest score among the open ones (ties: the lowest index); closes it.
KH_PORTABLE int take_best(const float* score, bool* open, int n) {
  int best = -1;
  for (int e = 0; e < n; ++e)
    if (open[e] && (best < 0 || score[e] > score[best])) best = e;
  open[best] = false;
  return best;
}

// Token t's routing under the definition's no-aux rule (top-2 group sums, 4 groups,
// top-8 experts by sigmoid + bias): marks used[e - offset] for each chosen local expert.
struct RoutingStep {
  const float* logits;        // [tokens, 256]
  const std::uint16_t* bias;  // [256] bf16
  std::int64_t offset;
  std::uint32_t* used;  // [32], 0 or 1
  KH_PORTABLE void operator()(std::uint64_t t) const {
    float score[kExperts];
    for (int e = 0; e < kExperts; ++e) {
      const double x = logits[t * kExperts + static_cast<std::uint64_t>(e)];
      score[e] = static_cast<float>(1.0 / (1.0 + detail::portable_exp(-x))) + detail::decode_bf16(bias[e]);
    }
    float group[kGroups];
    for (int g = 0; g < kGroups; ++g) {
      bool open[kGroupSize];
      for (int j = 0; j < kGroupSize; ++j) open[j] = true;
      const float* members = score + g * kGroupSize;
      const float first = members[take_best(members, open, kGroupSize)];
      group[g] = first + members[take_best(members, open, kGroupSize)];
    }
    bool group_open[kGroups];
    for (int g = 0; g < kGroups; ++g) group_open[g] = true;
    bool open[kExperts];
    for (int e = 0; e < kExperts; ++e) open[e] = false;
    for (int k = 0; k < 4; ++k) {
      const int g = take_best(group, group_open, kGroups);
      for (int j = 0; j < kGroupSize; ++j) open[g * kGroupSize + j] = true;
    }
    for (int k = 0; k < 8; ++k) {
      const int e = take_best(score, open, kExperts);
      if (e < offset || e >= offset + kLocalExperts) continue;
#if defined(__CUDA_ARCH__)
      atomicOr(&used[e - offset], 1u);  // tokens run side by side on the device
#else
      used[e - offset] = 1;  // the host twin routes tokens on one thread
#endif
    }
  }
};

// Word k of a tensor of fp8 codes (4 codes a word; the tensor is a whole number of
// words): the table's codes when its expert is in use (or `used` is null), else zero.
struct CodeStep {
  std::uint32_t* words;
  const std::uint8_t* table;
  std::uint64_t key;
  const std::uint32_t* used;  // null: every word gets codes
  std::uint64_t words_per_expert;
  KH_PORTABLE void operator()(std::uint64_t k) const {
    const bool live = used == nullptr || used[k / words_per_expert] != 0;
    words[k] = live ? detail::four_codes(table, random_word(key, k)) : 0u;
  }
};

// Positive float32 block scales base * 2^u, u uniform in [-1, 1).
struct ScaleStep {
  float* out;
  std::uint64_t key;
  double base;
  KH_PORTABLE void operator()(std::uint64_t i) const {
    const double u = 2.0 * unit_double(random_word(key, i)) - 1.0;
    out[i] = static_cast<float>(base * detail::portable_exp(u * kLn2));
  }
};

// The device launches of the steps above (moe_inputs.cu), on a cudaStream_t.
void launch_routing(const RoutingStep& step, std::uint64_t tokens, void* stream);
void launch_codes(const CodeStep& step, std::uint64_t words, void* stream);
void launch_scales(const ScaleStep& step, std::uint64_t n, void* stream);

}  // namespace kh::moe_inputs
