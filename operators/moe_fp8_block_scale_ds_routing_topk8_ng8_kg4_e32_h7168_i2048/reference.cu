// CUDA reference for moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048.
//
// 1. route_tokens: one thread per token, DeepSeek-V3 no-aux routing in float32 exactly
//    as the Python reference (ties: the lowest index); counts the rows of each expert.
// 2. scan_counts + assign_rows: rows grouped by local expert (row = one (token, expert)
//    pair), each row remembering its token.
// 3. expert_gemm<SwiGLU>: GEMM1 with the SwiGLU fused (each block computes the X1 and X2
//    columns it pairs), activations gathered and dequantised as tiles load.
// 4. expert_gemm<plain>: GEMM2 into an fp32 buffer, one row per pair.
// 5. combine: per token, the weighted expert outputs summed in expert order (as the
//    reference's index_add_ loop does), rounded to bf16. No atomics: deterministic.
// Everything is fp32 on dequantised values with 64x64 shared-memory tiles.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <kharness/kernel.h>

#include <cstdint>
#include <type_traits>

namespace {

constexpr int kTopK = 8;
constexpr int kGroups = 8;
constexpr int kKeptGroups = 4;
constexpr int kBlock = 128;  // quantisation block edge
constexpr int kTile = 64;    // GEMM tile edge (rows and columns)
constexpr int kTileK = 16;
constexpr int kThreads = 256;

__device__ float fp8_to_float(uint8_t code) {
  __nv_fp8_e4m3 v;
  v.__x = code;
  return static_cast<float>(v);
}

__device__ float sigmoid_score(const float* logits, int e) { return 1.0f / (1.0f + expf(-logits[e])); }

// Writes each token's 8 local expert indices (-1 when the expert is not local) and weights.
__global__ void route_tokens(const float* __restrict__ logits, const __nv_bfloat16* __restrict__ bias,
                             int tokens, int experts, int offset, int local, float scaling,
                             int* __restrict__ pick_local, float* __restrict__ pick_weight,
                             int* __restrict__ counts) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const float* row = logits + static_cast<int64_t>(t) * experts;
  const int group_size = experts / kGroups;
  float group_score[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    float first = -INFINITY, second = -INFINITY;
    for (int e = g * group_size; e < (g + 1) * group_size; ++e) {
      const float v = sigmoid_score(row, e) + __bfloat162float(bias[e]);
      if (v > first) {
        second = first;
        first = v;
      } else if (v > second) {
        second = v;
      }
    }
    group_score[g] = first + second;
  }
  bool kept[kGroups] = {};
  for (int k = 0; k < kKeptGroups; ++k) {
    int best = -1;
    for (int g = 0; g < kGroups; ++g)
      if (!kept[g] && (best < 0 || group_score[g] > group_score[best])) best = g;
    kept[best] = true;
  }
  int chosen[kTopK];
  float sum = 0.0f;
  for (int k = 0; k < kTopK; ++k) {
    int best = -1;
    float best_value = 0.0f;
    for (int e = 0; e < experts; ++e) {
      if (!kept[e / group_size]) continue;
      bool taken = false;
      for (int j = 0; j < k; ++j) taken |= chosen[j] == e;
      if (taken) continue;
      const float v = sigmoid_score(row, e) + __bfloat162float(bias[e]);
      if (best < 0 || v > best_value) {
        best = e;
        best_value = v;
      }
    }
    chosen[k] = best;
    sum += sigmoid_score(row, best);  // the weights use the scores without the bias
  }
  for (int k = 0; k < kTopK; ++k) {
    const int le = chosen[k] - offset;
    const bool is_local = le >= 0 && le < local;
    pick_local[t * kTopK + k] = is_local ? le : -1;
    pick_weight[t * kTopK + k] = sigmoid_score(row, chosen[k]) / (sum + 1e-20f) * scaling;
    if (is_local) atomicAdd(&counts[le], 1);
  }
}

// offsets[e] = rows of the experts before e; offsets[local] = all rows.
__global__ void scan_counts(const int* __restrict__ counts, int local, int* __restrict__ offsets) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  offsets[0] = 0;
  for (int e = 0; e < local; ++e) offsets[e + 1] = offsets[e] + counts[e];
}

// Gives every (token, local expert) pair a row in its expert's range.
__global__ void assign_rows(const int* __restrict__ pick_local, int tokens, const int* __restrict__ offsets,
                            int* __restrict__ cursor, int* __restrict__ row_token,
                            int* __restrict__ pick_row) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  for (int k = 0; k < kTopK; ++k) {
    const int le = pick_local[t * kTopK + k];
    int row = -1;
    if (le >= 0) {
      row = offsets[le] + atomicAdd(&cursor[le], 1);
      row_token[row] = t;
    }
    pick_row[t * kTopK + k] = row;
  }
}

// A operand of GEMM1: row r is token row_token[r] of hidden_states, dequantised.
struct GatheredHidden {
  const uint8_t* codes;  // [T, H]
  const float* scale;    // [H/128, T]
  const int* row_token;
  int tokens, hidden;
  __device__ float at(int64_t row, int k) const {
    const int t = row_token[row];
    return fp8_to_float(codes[static_cast<int64_t>(t) * hidden + k]) *
           scale[static_cast<int64_t>(k / kBlock) * tokens + t];
  }
};

// A operand of GEMM2: a dense fp32 [rows, K] matrix.
struct DenseRows {
  const float* values;
  int cols;
  __device__ float at(int64_t row, int k) const { return values[row * cols + k]; }
};

// out[row, n] for the rows of local expert blockIdx.z against its fp8 weight rows
// (dequantised with the 128x128 block scales). With kSwiGLU the weight has 2 * n_out rows
// and out[row, n] = silu(X[row, n_out + n]) * X[row, n]; otherwise out[row, n] = X[row, n].
template <bool kSwiGLU, class Operand>
__global__ void __launch_bounds__(kThreads)
    expert_gemm(Operand a, const uint8_t* __restrict__ w, const float* __restrict__ w_scale,
                const int* __restrict__ offsets, float* __restrict__ out, int n_out, int k_dim) {
  constexpr int kHalves = kSwiGLU ? 2 : 1;
  __shared__ float a_tile[kTileK][kTile + 4];
  __shared__ float w_tile[kHalves][kTileK][kTile + 4];
  const int e = blockIdx.z;
  const int first_row = offsets[e];
  const int count = offsets[e + 1] - first_row;
  const int n0 = blockIdx.x * kTile;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int load_row = threadIdx.x / 4, load_k = (threadIdx.x % 4) * 4;
  const int64_t w_rows = static_cast<int64_t>(kHalves) * n_out;
  const uint8_t* we = w + e * w_rows * k_dim;
  const float* se = w_scale + e * (w_rows / kBlock) * (k_dim / kBlock);
  for (int m0 = blockIdx.y * kTile; m0 < count; m0 += gridDim.y * kTile) {
    float acc[kHalves][4][4] = {};
    for (int k0 = 0; k0 < k_dim; k0 += kTileK) {
      for (int j = 0; j < 4; ++j) {
        const bool inside = m0 + load_row < count;
        a_tile[load_k + j][load_row] = inside ? a.at(first_row + m0 + load_row, k0 + load_k + j) : 0.0f;
      }
      for (int h = 0; h < kHalves; ++h) {
        const int64_t wrow = h * n_out + n0 + load_row;
        const float s = se[(wrow / kBlock) * (k_dim / kBlock) + k0 / kBlock];
        for (int j = 0; j < 4; ++j)
          w_tile[h][load_k + j][load_row] = fp8_to_float(we[wrow * k_dim + k0 + load_k + j]) * s;
      }
      __syncthreads();
      for (int k = 0; k < kTileK; ++k) {
        float av[4];
        for (int i = 0; i < 4; ++i) av[i] = a_tile[k][ty * 4 + i];
        for (int h = 0; h < kHalves; ++h)
          for (int j = 0; j < 4; ++j) {
            const float bv = w_tile[h][k][tx * 4 + j];
            for (int i = 0; i < 4; ++i) acc[h][i][j] += av[i] * bv;
          }
      }
      __syncthreads();
    }
    for (int i = 0; i < 4; ++i) {
      const int r = m0 + ty * 4 + i;
      if (r >= count) continue;
      for (int j = 0; j < 4; ++j) {
        float v = acc[0][i][j];
        if (kSwiGLU) {
          const float x2 = acc[kHalves - 1][i][j];
          v = x2 / (1.0f + expf(-x2)) * acc[0][i][j];
        }
        out[static_cast<int64_t>(first_row + r) * n_out + n0 + tx * 4 + j] = v;
      }
    }
  }
}

// output[t, :] = bf16(sum over the token's local experts, in expert order, of weight * row).
__global__ void combine(const float* __restrict__ expert_out, const int* __restrict__ pick_local,
                        const int* __restrict__ pick_row, const float* __restrict__ pick_weight, int hidden,
                        __nv_bfloat16* __restrict__ output) {
  const int t = blockIdx.x;
  int order[kTopK];
  int n = 0;
  for (int k = 0; k < kTopK; ++k) {
    if (pick_local[t * kTopK + k] < 0) continue;
    int at = n++;
    for (; at > 0 && pick_local[t * kTopK + order[at - 1]] > pick_local[t * kTopK + k]; --at)
      order[at] = order[at - 1];
    order[at] = k;
  }
  for (int c = blockIdx.y * blockDim.x + threadIdx.x; c < hidden; c += gridDim.y * blockDim.x) {
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {
      const int k = order[i];
      acc +=
          expert_out[static_cast<int64_t>(pick_row[t * kTopK + k]) * hidden + c] * pick_weight[t * kTopK + k];
    }
    output[static_cast<int64_t>(t) * hidden + c] = __float2bfloat16(acc);
  }
}

// The buffers of one call, carved from one allocation (256-byte aligned each).
struct Scratch {
  int *counts, *cursors, *offsets, *pick_local, *pick_row, *row_token;
  float *pick_weight, *activated, *expert_out;

  // Points the buffers into `base` (nullptr: only measures); returns the bytes needed.
  int64_t layout(char* base, int local, int64_t picks, int64_t max_rows, int inter, int hidden) {
    int64_t used = 0;
    auto carve = [&](auto*& p, int64_t count) {
      p = base == nullptr ? nullptr : reinterpret_cast<std::remove_reference_t<decltype(p)>>(base + used);
      used += (count * static_cast<int64_t>(sizeof(*p)) + 255) / 256 * 256;
    };
    carve(counts, local);
    carve(cursors, local);
    carve(offsets, local + 1);
    carve(pick_local, picks);
    carve(pick_row, picks);
    carve(pick_weight, picks);
    carve(row_token, max_rows);
    carve(activated, max_rows * inter);
    carve(expert_out, max_rows * hidden);
    return used;
  }
};

}  // namespace

int moe_reference(const DLTensor* routing_logits, const DLTensor* routing_bias, const DLTensor* hidden_states,
                  const DLTensor* hidden_states_scale, const DLTensor* gemm1_weights,
                  const DLTensor* gemm1_weights_scale, const DLTensor* gemm2_weights,
                  const DLTensor* gemm2_weights_scale, int32_t local_expert_offset,
                  float routed_scaling_factor, DLTensor* output, kh_stream_t stream) {
  const int tokens = static_cast<int>(routing_logits->shape[0]);
  const int experts = static_cast<int>(routing_logits->shape[1]);
  const int hidden = static_cast<int>(hidden_states->shape[1]);
  const int local = static_cast<int>(gemm1_weights->shape[0]);
  const int inter = static_cast<int>(gemm2_weights->shape[2]);
  if (tokens == 0) return 0;
  // Worst case: every pick of every token local. Rows of the real run are fewer.
  const int64_t max_rows = static_cast<int64_t>(tokens) * (local < kTopK ? local : kTopK);
  const int64_t picks = static_cast<int64_t>(tokens) * kTopK;
  Scratch b{};
  char* scratch = nullptr;
  if (cudaMallocAsync(&scratch, b.layout(nullptr, local, picks, max_rows, inter, hidden), stream) !=
      cudaSuccess)
    return 1;  // the harness reports a failed call
  b.layout(scratch, local, picks, max_rows, inter, hidden);
  cudaMemsetAsync(b.counts, 0, local * sizeof(int), stream);
  cudaMemsetAsync(b.cursors, 0, local * sizeof(int), stream);

  const int token_blocks = (tokens + 127) / 128;
  route_tokens<<<token_blocks, 128, 0, stream>>>(
      static_cast<const float*>(routing_logits->data), static_cast<const __nv_bfloat16*>(routing_bias->data),
      tokens, experts, local_expert_offset, local, routed_scaling_factor, b.pick_local, b.pick_weight,
      b.counts);
  scan_counts<<<1, 1, 0, stream>>>(b.counts, local, b.offsets);
  assign_rows<<<token_blocks, 128, 0, stream>>>(b.pick_local, tokens, b.offsets, b.cursors, b.row_token,
                                                b.pick_row);

  const int row_tiles = (tokens + kTile - 1) / kTile;
  const unsigned grid_y = row_tiles < 64 ? row_tiles : 64;  // blocks loop over further row tiles
  const GatheredHidden gathered{static_cast<const uint8_t*>(hidden_states->data),
                                static_cast<const float*>(hidden_states_scale->data), b.row_token, tokens,
                                hidden};
  expert_gemm<true><<<dim3(inter / kTile, grid_y, local), kThreads, 0, stream>>>(
      gathered, static_cast<const uint8_t*>(gemm1_weights->data),
      static_cast<const float*>(gemm1_weights_scale->data), b.offsets, b.activated, inter, hidden);
  expert_gemm<false><<<dim3(hidden / kTile, grid_y, local), kThreads, 0, stream>>>(
      DenseRows{b.activated, inter}, static_cast<const uint8_t*>(gemm2_weights->data),
      static_cast<const float*>(gemm2_weights_scale->data), b.offsets, b.expert_out, hidden, inter);
  combine<<<dim3(tokens, (hidden + 1023) / 1024), 256, 0, stream>>>(
      b.expert_out, b.pick_local, b.pick_row, b.pick_weight, hidden,
      static_cast<__nv_bfloat16*>(output->data));
  cudaFreeAsync(scratch, stream);
  return 0;
}
