// The routing and row grouping of the loop's fp8 MoE candidates (fp8mma, fp8wg; the baseline's
// algorithm): DeepSeek-V3 routing, one warp a token (sigmoid scores + bias, the best 4 of 8 groups by
// their top-2 sums, the top 8 experts of those), then per local expert a count, a scan into a
// device-side list of (expert, first row) tiles of BM rows, and each pick's row. The GEMMs that
// consume the rows are moe_fp8_gemm.cuh's; the call that chains them, moe_fp8_grouped.cuh.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

namespace moe_fp8_grouped {

constexpr int kTopK = 8;
constexpr int kGroups = 8;
constexpr int kKeptGroups = 4;
// ---------------------------------------------------------------- routing (baseline's)

__device__ __forceinline__ bool better(float v, int i, float bv, int bi) {
  return v > bv || (v == bv && i < bi);
}

__device__ __forceinline__ void warp_best(float& v, int& i) {
  for (int off = 16; off > 0; off >>= 1) {
    const float ov = __shfl_xor_sync(0xffffffffu, v, off);
    const int oi = __shfl_xor_sync(0xffffffffu, i, off);
    if (better(ov, oi, v, i)) {
      v = ov;
      i = oi;
    }
  }
}

// One warp per token; lane l holds experts 8l..8l+7 (a group is 4 lanes).
__global__ void route(const float* __restrict__ logits, const __nv_bfloat16* __restrict__ bias, int tokens,
                      int offset, int local, float scaling, int* __restrict__ pick_local,
                      float* __restrict__ pick_weight, int* __restrict__ counts) {
  const int lane = threadIdx.x % 32;
  const int t = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (t >= tokens) return;
  float s[8], biased[8];
  const float4* row = reinterpret_cast<const float4*>(logits + static_cast<int64_t>(t) * 256 + lane * 8);
  const float4 lo = row[0], hi = row[1];
  const float x[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  float first = -INFINITY, second = -INFINITY;
  for (int j = 0; j < 8; ++j) {
    s[j] = 1.0f / (1.0f + expf(-x[j]));
    biased[j] = s[j] + __bfloat162float(bias[lane * 8 + j]);
    if (biased[j] > first) {
      second = first;
      first = biased[j];
    } else if (biased[j] > second) {
      second = biased[j];
    }
  }
  for (int off = 1; off < 4; off <<= 1) {
    const float of = __shfl_xor_sync(0xffffffffu, first, off);
    const float os = __shfl_xor_sync(0xffffffffu, second, off);
    const float hi_first = fmaxf(first, of);
    second = fmaxf(fminf(first, of), fmaxf(second, os));
    first = hi_first;
  }
  float group_score[kGroups];
  for (int g = 0; g < kGroups; ++g) group_score[g] = __shfl_sync(0xffffffffu, first + second, g * 4);
  uint32_t kept = 0;
  for (int k = 0; k < kKeptGroups; ++k) {
    int best = -1;
    for (int g = 0; g < kGroups; ++g)
      if (!(kept >> g & 1u) && (best < 0 || group_score[g] > group_score[best])) best = g;
    kept |= 1u << best;
  }
  const bool lane_kept = kept >> (lane / 4) & 1u;
  uint32_t taken = 0;
  float chosen_s = 0.0f, sum = 0.0f;
  int chosen_e = -1;
  for (int k = 0; k < kTopK; ++k) {
    float v = -INFINITY;
    int e = 1 << 30;
    for (int j = 0; j < 8; ++j)
      if (lane_kept && !(taken >> j & 1u) && better(biased[j], lane * 8 + j, v, e)) {
        v = biased[j];
        e = lane * 8 + j;
      }
    warp_best(v, e);
    const bool mine = e / 8 == lane;
    float pick_s = mine ? s[e % 8] : 0.0f;
    if (mine) taken |= 1u << (e % 8);
    pick_s = __shfl_sync(0xffffffffu, pick_s, e / 8);
    sum += pick_s;
    if (lane == k) {
      chosen_s = pick_s;
      chosen_e = e;
    }
  }
  if (lane < kTopK) {
    const int le = chosen_e - offset;
    const bool is_local = le >= 0 && le < local;
    pick_local[t * kTopK + lane] = is_local ? le : -1;
    pick_weight[t * kTopK + lane] = chosen_s / (sum + 1e-20f) * scaling;
    if (is_local) atomicAdd(&counts[le], 1);
  }
}

// offsets[e] = rows before expert e; tiles = (expert, first row in expert) per BM rows.
__global__ void plan_tiles(const int* __restrict__ counts, int local, int bm, int cap,
                           int* __restrict__ offsets, int2* __restrict__ tiles, int* __restrict__ num_tiles) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int off = 0, n = 0;
  for (int e = 0; e < local; ++e) {
    offsets[e] = off;
    const int c = counts[e];
    for (int m0 = 0; m0 < c && n < cap; m0 += bm) tiles[n++] = make_int2(e, m0);
    off += c;
  }
  offsets[local] = off;
  *num_tiles = n;
}

__global__ void assign_rows(const int* __restrict__ pick_local, const float* __restrict__ pick_weight,
                            int tokens, const int* __restrict__ offsets, int* __restrict__ cursor,
                            int* __restrict__ row_token, float* __restrict__ row_weight) {
  const int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= static_cast<int64_t>(tokens) * kTopK) return;
  const int le = pick_local[p];
  if (le < 0) return;
  const int row = offsets[le] + atomicAdd(&cursor[le], 1);
  row_token[row] = static_cast<int>(p / kTopK);
  row_weight[row] = pick_weight[p];
}

// ---------------------------------------------------------------- lean planning (fp8wg_lean)
// For calls of at most kPlanMaxTokens tokens, one kernel replaces the two memsets, plan_tiles and
// assign_rows: block 0 recounts each local expert's picks from route's pick_local (route's own
// counts are then unused, so they need no zeroing), lays out the (expert, first row) tiles as
// plan_tiles does and assigns every pick its row, with the counts and cursors in shared memory;
// blocks 1.. zero GEMM2's fp32 sum (block 0 also zeroes the `arrivals` counters of GEMM2's cast). Small calls
// are a chain of short kernels whose launches, not their work, set the latency, so a launch less is worth
// more than its kernel.
constexpr int kPlanThreads = 1024;
constexpr int kPlanMaxLocal = 256;
constexpr int kPlanMaxTokens = 128;

__global__ void __launch_bounds__(kPlanThreads)
    plan_assign_zero(const int* __restrict__ pick_local, const float* __restrict__ pick_weight, int tokens,
                     int local, int bm, int cap, int* __restrict__ offsets, int2* __restrict__ tiles,
                     int* __restrict__ num_tiles, int* __restrict__ row_token, float* __restrict__ row_weight,
                     float4* __restrict__ sum, int64_t sum4, unsigned* __restrict__ arrived, int arrivals) {
  const int tid = threadIdx.x;
  if (blockIdx.x > 0) {
    const int64_t stride = static_cast<int64_t>(gridDim.x - 1) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x - 1) * blockDim.x + tid; i < sum4; i += stride)
      sum[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    return;
  }
  __shared__ int count[kPlanMaxLocal];
  __shared__ int cursor[kPlanMaxLocal];
  __shared__ int first_row[kPlanMaxLocal];
  __shared__ int pick_expert[kPlanMaxTokens * kTopK];
  const int picks = tokens * kTopK;
  for (int e = tid; e < local; e += blockDim.x) {
    count[e] = 0;
    cursor[e] = 0;
  }
  for (int i = tid; i < arrivals; i += blockDim.x) arrived[i] = 0u;  // GEMM2's cast, if any
  __syncthreads();
  for (int p = tid; p < picks; p += blockDim.x) {
    const int le = pick_local[p];
    pick_expert[p] = le;
    if (le >= 0) atomicAdd(&count[le], 1);
  }
  __syncthreads();
  if (tid == 0) {  // plan_tiles's layout, from shared memory
    int off = 0, n = 0;
    for (int e = 0; e < local; ++e) {
      offsets[e] = off;
      first_row[e] = off;
      const int c = count[e];
      for (int m0 = 0; m0 < c && n < cap; m0 += bm) tiles[n++] = make_int2(e, m0);
      off += c;
    }
    offsets[local] = off;
    *num_tiles = n;
  }
  __syncthreads();
  for (int p = tid; p < picks; p += blockDim.x) {
    const int le = pick_expert[p];
    if (le < 0) continue;
    const int row = first_row[le] + atomicAdd(&cursor[le], 1);
    row_token[row] = p / kTopK;
    row_weight[row] = pick_weight[p];
  }
}

}  // namespace moe_fp8_grouped
