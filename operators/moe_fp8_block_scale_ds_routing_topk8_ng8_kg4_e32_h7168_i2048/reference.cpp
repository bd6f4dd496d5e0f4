// CPU reference for moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048:
// DeepSeek-V3 no-aux routing in float32, then for each local expert that received
// tokens GEMM1 -> SwiGLU -> GEMM2 on dequantised values (double dot products, float32
// intermediates as in the Python reference), accumulated per token in expert order and
// rounded to bf16. Only the experts that received tokens are touched: the weights are
// 1.4 GB, the work of a small batch a few of the 32 experts.
#include <kharness/host_float.h>
#include <kharness/kernel.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

constexpr int kGroups = 8;
constexpr int kKeptGroups = 4;
constexpr int kTopK = 8;
constexpr int kBlock = 128;

struct Sizes {
  int64_t tokens, experts, hidden, intermediate, local_experts;
};

// The experts a token is routed to and their combination weights.
struct TokenRoute {
  int expert[kTopK];
  float weight[kTopK];
};

// Index of the largest value among those allowed (ties: the lowest index).
int argmax(const std::vector<float>& v, const std::vector<bool>& allowed) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(v.size()); ++i) {
    if (allowed[i] && (best < 0 || v[i] > v[best])) best = i;
  }
  return best;
}

TokenRoute route_token(const float* logits, const std::vector<float>& bias, int64_t experts, float scaling) {
  std::vector<float> s(experts), biased(experts);
  for (int64_t e = 0; e < experts; ++e) {
    s[e] = 1.0f / (1.0f + std::exp(-logits[e]));
    biased[e] = s[e] + bias[e];
  }
  // Group score: the sum of the group's two largest biased scores.
  const int64_t group_size = experts / kGroups;
  std::vector<float> group_score(kGroups);
  for (int g = 0; g < kGroups; ++g) {
    std::vector<float> members(biased.begin() + g * group_size, biased.begin() + (g + 1) * group_size);
    std::vector<bool> open(group_size, true);
    const int first = argmax(members, open);
    open[first] = false;
    group_score[g] = members[first] + members[argmax(members, open)];
  }
  std::vector<bool> group_open(kGroups, true), expert_open(experts, false);
  for (int k = 0; k < kKeptGroups; ++k) {
    const int g = argmax(group_score, group_open);
    group_open[g] = false;
    for (int64_t e = g * group_size; e < (g + 1) * group_size; ++e) expert_open[e] = true;
  }
  TokenRoute r{};
  float sum = 0.0f;
  for (int k = 0; k < kTopK; ++k) {
    r.expert[k] = argmax(biased, expert_open);
    expert_open[r.expert[k]] = false;
    sum += s[r.expert[k]];  // the weights use the scores without the bias
  }
  for (int k = 0; k < kTopK; ++k) r.weight[k] = s[r.expert[k]] / (sum + 1e-20f) * scaling;
  return r;
}

// Four partial sums in double: the same result to within double rounding, without one
// long chain of dependent additions (about 4x faster, which lets the GPU machine's
// reference agreement test run the 80-token workloads on this reference).
double dot(const float* a, const float* b, int64_t n) {
  double part[4] = {0.0, 0.0, 0.0, 0.0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int j = 0; j < 4; ++j) part[j] += static_cast<double>(a[i + j]) * b[i + j];
  for (; i < n; ++i) part[0] += static_cast<double>(a[i]) * b[i];
  return (part[0] + part[1]) + (part[2] + part[3]);
}

// Row `row` of a [rows, cols] fp8 matrix times its 128x128 block scales ([rows/128, cols/128]).
void dequantise_row(const uint8_t* codes, const float* scales, int64_t row, int64_t cols,
                    const KhE4m3Table& fp8, float* out) {
  const uint8_t* r = codes + row * cols;
  const float* s = scales + (row / kBlock) * (cols / kBlock);
  for (int64_t c = 0; c < cols; ++c) out[c] = fp8.value[r[c]] * s[c / kBlock];
}

struct Problem {
  Sizes n;
  const uint8_t* hidden;      // [T, H]
  const float* hidden_scale;  // [H/128, T]
  const uint8_t* w13;         // [E_local, 2I, H]
  const float* w13_scale;     // [E_local, 2I/128, H/128]
  const uint8_t* w2;          // [E_local, H, I]
  const float* w2_scale;      // [E_local, H/128, I/128]
  KhE4m3Table fp8;
};

// Dequantised activations of the listed tokens, [tokens.size(), H].
std::vector<float> gather_activations(const Problem& p, const std::vector<int64_t>& tokens) {
  const int64_t h = p.n.hidden;
  std::vector<float> a(tokens.size() * h);
  for (size_t i = 0; i < tokens.size(); ++i) {
    for (int64_t c = 0; c < h; ++c) {
      const float scale = p.hidden_scale[(c / kBlock) * p.n.tokens + tokens[i]];
      a[i * h + c] = p.fp8.value[p.hidden[tokens[i] * h + c]] * scale;
    }
  }
  return a;
}

// GEMM1 -> SwiGLU -> GEMM2 of one local expert for its tokens; adds weight * result to `out`.
void run_expert(const Problem& p, int64_t le, const std::vector<int64_t>& tokens,
                const std::vector<float>& weights, std::vector<float>& out) {
  const int64_t h = p.n.hidden, inter = p.n.intermediate, count = static_cast<int64_t>(tokens.size());
  const std::vector<float> a = gather_activations(p, tokens);
  const uint8_t* w13 = p.w13 + le * 2 * inter * h;
  const float* s13 = p.w13_scale + le * (2 * inter / kBlock) * (h / kBlock);
  std::vector<float> g1(count * 2 * inter), row(h);
  for (int64_t j = 0; j < 2 * inter; ++j) {
    dequantise_row(w13, s13, j, h, p.fp8, row.data());
    for (int64_t t = 0; t < count; ++t)
      g1[t * 2 * inter + j] = static_cast<float>(dot(&a[t * h], row.data(), h));
  }
  // SwiGLU: silu applied to the second half, times the first half.
  std::vector<float> c(count * inter);
  for (int64_t t = 0; t < count; ++t) {
    for (int64_t i = 0; i < inter; ++i) {
      const float x1 = g1[t * 2 * inter + i], x2 = g1[t * 2 * inter + inter + i];
      c[t * inter + i] = x2 / (1.0f + std::exp(-x2)) * x1;
    }
  }
  const uint8_t* w2 = p.w2 + le * h * inter;
  const float* s2 = p.w2_scale + le * (h / kBlock) * (inter / kBlock);
  std::vector<float> down(inter);
  for (int64_t col = 0; col < h; ++col) {
    dequantise_row(w2, s2, col, inter, p.fp8, down.data());
    for (int64_t t = 0; t < count; ++t) {
      const float o = static_cast<float>(dot(&c[t * inter], down.data(), inter));
      out[tokens[t] * h + col] += o * weights[t];
    }
  }
}

}  // namespace

void moe_reference(const DLTensor* routing_logits, const DLTensor* routing_bias,
                   const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                   const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                   const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                   int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                   kh_stream_t /*stream*/) {
  Problem p{{routing_logits->shape[0], routing_logits->shape[1], hidden_states->shape[1],
             gemm2_weights->shape[2], gemm1_weights->shape[0]},
            static_cast<const uint8_t*>(hidden_states->data),
            static_cast<const float*>(hidden_states_scale->data),
            static_cast<const uint8_t*>(gemm1_weights->data),
            static_cast<const float*>(gemm1_weights_scale->data),
            static_cast<const uint8_t*>(gemm2_weights->data),
            static_cast<const float*>(gemm2_weights_scale->data),
            KhE4m3Table()};
  const Sizes& n = p.n;
  std::vector<float> bias(n.experts);
  for (int64_t e = 0; e < n.experts; ++e)
    bias[e] = kh_bf16_to_float(static_cast<const uint16_t*>(routing_bias->data)[e]);
  // Token lists per local expert, tokens in increasing order.
  std::vector<std::vector<int64_t>> tokens(n.local_experts);
  std::vector<std::vector<float>> weights(n.local_experts);
  const auto* logits = static_cast<const float*>(routing_logits->data);
  for (int64_t t = 0; t < n.tokens; ++t) {
    const TokenRoute r = route_token(logits + t * n.experts, bias, n.experts, routed_scaling_factor);
    for (int k = 0; k < kTopK; ++k) {
      const int64_t le = r.expert[k] - static_cast<int64_t>(local_expert_offset);
      if (le < 0 || le >= n.local_experts) continue;
      tokens[le].push_back(t);
      weights[le].push_back(r.weight[k]);
    }
  }
  std::vector<float> out(n.tokens * n.hidden, 0.0f);
  for (int64_t le = 0; le < n.local_experts; ++le) {
    if (!tokens[le].empty()) run_expert(p, le, tokens[le], weights[le], out);
  }
  auto* y = static_cast<uint16_t*>(output->data);
  for (int64_t i = 0; i < n.tokens * n.hidden; ++i) y[i] = kh_float_to_bf16(out[i]);
}
