// CPU baseline for moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048.
//
// Unlike the reference it never dequantises a whole row: each 128-element block of raw
// fp8 codes is decoded once and dotted with the raw activation codes of a tile of tokens
// in float (LANES independent partial sums, which the compiler turns into SIMD), and the
// two block scales are applied once per block product, as block-scaled GEMM kernels do.
//
// kh:param TOKEN_TILE in {1,4,16}  tokens that share one decoded weight block
// kh:param LANES in {4,8,16}       partial sums of a 128-element block product
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#ifndef TOKEN_TILE
#define TOKEN_TILE 4
#endif
#ifndef LANES
#define LANES 8
#endif

namespace {

constexpr int kBlock = 128;
constexpr int kGroups = 8;
constexpr int kKeptGroups = 4;
constexpr int kTopK = 8;

// Orders candidates by score, higher first, ties to the lower index.
struct ByScore {
  const float* score;
  bool operator()(int a, int b) const { return score[a] != score[b] ? score[a] > score[b] : a < b; }
};

// Top-8 experts and weights of one token, written to expert[0..8) and weight[0..8).
void route(const float* logits, const float* bias, int experts, float scaling, int* expert, float* weight) {
  std::vector<float> s(experts), biased(experts);
  for (int e = 0; e < experts; ++e) {
    s[e] = 1.0f / (1.0f + std::exp(-logits[e]));
    biased[e] = s[e] + bias[e];
  }
  const int group_size = experts / kGroups;
  float group_score[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    float first = -INFINITY, second = -INFINITY;
    for (int e = g * group_size; e < (g + 1) * group_size; ++e) {
      if (biased[e] > first) {
        second = first;
        first = biased[e];
      } else if (biased[e] > second) {
        second = biased[e];
      }
    }
    group_score[g] = first + second;
  }
  int groups[kGroups];
  for (int g = 0; g < kGroups; ++g) groups[g] = g;
  std::partial_sort(groups, groups + kKeptGroups, groups + kGroups, ByScore{group_score});
  std::vector<int> candidates;
  for (int k = 0; k < kKeptGroups; ++k)
    for (int e = groups[k] * group_size; e < (groups[k] + 1) * group_size; ++e) candidates.push_back(e);
  std::partial_sort(candidates.begin(), candidates.begin() + kTopK, candidates.end(), ByScore{biased.data()});
  float sum = 0.0f;
  for (int k = 0; k < kTopK; ++k) sum += s[candidates[k]];
  for (int k = 0; k < kTopK; ++k) {
    expert[k] = candidates[k];
    weight[k] = s[candidates[k]] / (sum + 1e-20f) * scaling;
  }
}

float block_dot(const float* a, const float* w) {
  float part[LANES] = {};
  for (int i = 0; i < kBlock; i += LANES)
    for (int l = 0; l < LANES; ++l) part[l] += a[i + l] * w[i + l];
  float sum = 0.0f;
  for (int l = 0; l < LANES; ++l) sum += part[l];
  return sum;
}

struct Moe {
  int64_t tokens, experts, hidden, inter;
  const uint8_t* x;        // [T, H]
  const float* x_scale;    // [H/128, T]
  const uint8_t* w13;      // [E_local, 2I, H]
  const float* w13_scale;  // [E_local, 2I/128, H/128]
  const uint8_t* w2;       // [E_local, H, I]
  const float* w2_scale;   // [E_local, H/128, I/128]
  KhE4m3Table fp8;
};

// out[t][r] = sum over blocks b of scale(r, b) * a_scale[t][b] * <a[t] block b, W[r] block b>
// for `rows` weight rows of length k; a is [n][k] raw values, a_scale [n][k/128] (or null).
void block_scaled_gemm(const Moe& m, const std::vector<float>& a, const float* a_scale, int64_t n,
                       const uint8_t* w, const float* w_scale, int64_t rows, int64_t k,
                       std::vector<float>& out) {
  const int64_t kb_count = k / kBlock;
  float wq[kBlock];
  for (int64_t t0 = 0; t0 < n; t0 += TOKEN_TILE) {
    const int64_t t1 = std::min<int64_t>(n, t0 + TOKEN_TILE);
    for (int64_t r = 0; r < rows; ++r) {
      float acc[TOKEN_TILE] = {};
      for (int64_t kb = 0; kb < kb_count; ++kb) {
        const uint8_t* codes = w + r * k + kb * kBlock;
        for (int i = 0; i < kBlock; ++i) wq[i] = m.fp8.value[codes[i]];
        const float ws = w_scale[(r / kBlock) * kb_count + kb];
        for (int64_t t = t0; t < t1; ++t) {
          const float as = a_scale != nullptr ? a_scale[t * kb_count + kb] : 1.0f;
          acc[t - t0] += ws * as * block_dot(&a[t * k + kb * kBlock], wq);
        }
      }
      for (int64_t t = t0; t < t1; ++t) out[t * rows + r] = acc[t - t0];
    }
  }
}

void expert_forward(const Moe& m, int64_t le, const std::vector<int>& tokens,
                    const std::vector<float>& weights, std::vector<float>& out) {
  const int64_t n = static_cast<int64_t>(tokens.size()), h = m.hidden, inter = m.inter, hb = h / kBlock;
  std::vector<float> a(n * h), a_scale(n * hb);
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t c = 0; c < h; ++c) a[t * h + c] = m.fp8.value[m.x[tokens[t] * h + c]];
    for (int64_t b = 0; b < hb; ++b) a_scale[t * hb + b] = m.x_scale[b * m.tokens + tokens[t]];
  }
  std::vector<float> g1(n * 2 * inter);
  block_scaled_gemm(m, a, a_scale.data(), n, m.w13 + le * 2 * inter * h,
                    m.w13_scale + le * (2 * inter / kBlock) * hb, 2 * inter, h, g1);
  std::vector<float> c(n * inter);
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t i = 0; i < inter; ++i) {
      const float x1 = g1[t * 2 * inter + i], x2 = g1[t * 2 * inter + inter + i];
      c[t * inter + i] = x1 * x2 / (1.0f + std::exp(-x2));
    }
  }
  std::vector<float> o(n * h);
  block_scaled_gemm(m, c, nullptr, n, m.w2 + le * h * inter, m.w2_scale + le * hb * (inter / kBlock), h,
                    inter, o);
  for (int64_t t = 0; t < n; ++t)
    for (int64_t col = 0; col < h; ++col) out[tokens[t] * h + col] += weights[t] * o[t * h + col];
}

}  // namespace

void moe_baseline(const DLTensor* routing_logits, const DLTensor* routing_bias, const DLTensor* hidden_states,
                  const DLTensor* hidden_states_scale, const DLTensor* gemm1_weights,
                  const DLTensor* gemm1_weights_scale, const DLTensor* gemm2_weights,
                  const DLTensor* gemm2_weights_scale, int32_t local_expert_offset,
                  float routed_scaling_factor, DLTensor* output, kh_stream_t /*stream*/) {
  const Moe m{routing_logits->shape[0],
              routing_logits->shape[1],
              hidden_states->shape[1],
              gemm2_weights->shape[2],
              static_cast<const uint8_t*>(hidden_states->data),
              static_cast<const float*>(hidden_states_scale->data),
              static_cast<const uint8_t*>(gemm1_weights->data),
              static_cast<const float*>(gemm1_weights_scale->data),
              static_cast<const uint8_t*>(gemm2_weights->data),
              static_cast<const float*>(gemm2_weights_scale->data),
              KhE4m3Table()};
  const int64_t local = gemm1_weights->shape[0];
  const auto* bias_bits = static_cast<const uint16_t*>(routing_bias->data);
  std::vector<float> bias(m.experts);
  for (int64_t e = 0; e < m.experts; ++e) bias[e] = kh_bf16_to_float(bias_bits[e]);
  std::vector<std::vector<int>> tokens(local);
  std::vector<std::vector<float>> weights(local);
  const auto* logits = static_cast<const float*>(routing_logits->data);
  for (int64_t t = 0; t < m.tokens; ++t) {
    int expert[kTopK];
    float weight[kTopK];
    route(logits + t * m.experts, bias.data(), static_cast<int>(m.experts), routed_scaling_factor, expert,
          weight);
    for (int k = 0; k < kTopK; ++k) {
      const int64_t le = static_cast<int64_t>(expert[k]) - local_expert_offset;
      if (le < 0 || le >= local) continue;
      tokens[le].push_back(static_cast<int>(t));
      weights[le].push_back(weight[k]);
    }
  }
  std::vector<float> out(m.tokens * m.hidden, 0.0f);
  for (int64_t le = 0; le < local; ++le)
    if (!tokens[le].empty()) expert_forward(m, le, tokens[le], weights[le], out);
  auto* y = static_cast<uint16_t*>(output->data);
  for (int64_t i = 0; i < m.tokens * m.hidden; ++i) y[i] = kh_float_to_bf16(out[i]);
}
