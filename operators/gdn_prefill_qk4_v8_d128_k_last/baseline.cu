// CUDA baseline for gdn_prefill_qk4_v8_d128_k_last: the token-by-token recurrence with the
// state in registers. Each k-last state row (a column of S = [K, V]) evolves on its own
// given the token's k, q, v[row] and gates, so a warp owns ROWS_PER_WARP rows (32 lanes x
// float4 = one row) for a whole sequence, with no block-level synchronisation at all:
//   old_v = g (k.S),  delta = beta (v - old_v),  S' = g S + k delta,
//   out = scale q.S' = scale (g (q.S) + (q.k) delta),
// k.S, q.S of every row and q.k reduced together by shuffles. Each token's inputs are
// loaded PREFETCH tokens ahead into a ring of registers. Measured on an H200, a step costs
// ~0.6 us (8192 tokens of one sequence: ~5 ms): the per-token instruction stream (gate
// math, 5 shuffle levels) of few warps per SM, not the loads, is the limit; computing the
// gates once per token for all rows (lanes in parallel, then shuffled) is the next step.
// Blocks: one per (sequence, v head, tile of ROWS_PER_WARP * WARPS_PER_BLOCK rows).
//
// kh:param ROWS_PER_WARP in {1,2,4,8}  state rows each warp keeps in registers
// kh:param WARPS_PER_BLOCK in {1,2,4}  warps per block (the V tile is ROWS_PER_WARP * WARPS_PER_BLOCK)
// kh:param PREFETCH in {1,2,4,8}  tokens whose inputs are in flight ahead of the one computed
#include <cuda_bf16.h>
#include <kharness/kernel.h>

#include "gdn_gates.h"

#ifndef ROWS_PER_WARP
#define ROWS_PER_WARP 4
#endif
#ifndef WARPS_PER_BLOCK
#define WARPS_PER_BLOCK 4
#endif
#ifndef PREFETCH
#define PREFETCH 2
#endif

namespace {

constexpr int kDim = GDN_HEAD_SIZE;
constexpr int kRowsPerBlock = ROWS_PER_WARP * WARPS_PER_BLOCK;
static_assert(kDim % kRowsPerBlock == 0, "a head's 128 rows must split evenly into blocks");
constexpr int kBlocksPerHead = kDim / kRowsPerBlock;

__device__ __forceinline__ float4 load_bf16x4(const __nv_bfloat16* p) {
  const uint2 raw = *reinterpret_cast<const uint2*>(p);
  const float2 lo = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.x));
  const float2 hi = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.y));
  return make_float4(lo.x, lo.y, hi.x, hi.y);
}

__device__ __forceinline__ float dot4(float4 x, float4 y) {
  return x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
}

struct PrefillArgs {
  const __nv_bfloat16* q;
  const __nv_bfloat16* k;
  const __nv_bfloat16* v;
  const float4* state;
  const float* A_log;
  const __nv_bfloat16* a;
  const float* dt_bias;
  const __nv_bfloat16* b;
  const int64_t* cu_seqlens;
  float scale;
  __nv_bfloat16* out;
  float4* new_state;
};

// One token's inputs as this lane needs them.
struct TokenInputs {
  float4 k4, q4;
  float v[ROWS_PER_WARP];
  float a, b;
};

__device__ __forceinline__ TokenInputs load_token(const PrefillArgs& p, int64_t t, int h, int row0,
                                                  int lane) {
  const int64_t qk_head = t * GDN_NUM_QK_HEADS + h / GDN_V_PER_QK;
  const int64_t v_head = t * GDN_NUM_V_HEADS + h;
  TokenInputs in;
  in.k4 = load_bf16x4(p.k + qk_head * kDim + lane * 4);
  in.q4 = load_bf16x4(p.q + qk_head * kDim + lane * 4);
#pragma unroll
  for (int j = 0; j < ROWS_PER_WARP; ++j) in.v[j] = __bfloat162float(p.v[v_head * kDim + row0 + j]);
  in.a = __bfloat162float(p.a[v_head]);
  in.b = __bfloat162float(p.b[v_head]);
  return in;
}

struct Gates {
  float decay, beta, scale;
};

// One token on this warp's rows: reduce k.S, q.S (every row) and q.k together, update the
// rows in registers, and let lane j write row j's output.
__device__ __forceinline__ void step(const PrefillArgs& p, const TokenInputs& in, Gates g, int64_t out_row,
                                     int lane, float4 (&s)[ROWS_PER_WARP]) {
  float qk = dot4(in.q4, in.k4);
  float ks[ROWS_PER_WARP], qs[ROWS_PER_WARP];
#pragma unroll
  for (int j = 0; j < ROWS_PER_WARP; ++j) {
    ks[j] = dot4(in.k4, s[j]);
    qs[j] = dot4(in.q4, s[j]);
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    qk += __shfl_xor_sync(0xffffffffu, qk, offset);
#pragma unroll
    for (int j = 0; j < ROWS_PER_WARP; ++j) {
      ks[j] += __shfl_xor_sync(0xffffffffu, ks[j], offset);
      qs[j] += __shfl_xor_sync(0xffffffffu, qs[j], offset);
    }
  }
#pragma unroll
  for (int j = 0; j < ROWS_PER_WARP; ++j) {
    const float old_v = g.decay * ks[j];
    const float delta = g.beta * (in.v[j] - old_v);
    s[j] = make_float4(g.decay * s[j].x + in.k4.x * delta, g.decay * s[j].y + in.k4.y * delta,
                       g.decay * s[j].z + in.k4.z * delta, g.decay * s[j].w + in.k4.w * delta);
    if (lane == j) p.out[out_row + j] = __float2bfloat16(g.scale * (g.decay * qs[j] + qk * delta));
  }
}

__global__ void __launch_bounds__(WARPS_PER_BLOCK * 32) gdn_prefill_baseline_kernel(PrefillArgs p) {
  const int64_t head = blockIdx.x / kBlocksPerHead;  // sequence * 8 + v head
  const int64_t seq = head / GDN_NUM_V_HEADS;
  const int h = static_cast<int>(head % GDN_NUM_V_HEADS);
  const int lane = threadIdx.x % 32;
  const int row0 =
      static_cast<int>(blockIdx.x % kBlocksPerHead) * kRowsPerBlock + (threadIdx.x / 32) * ROWS_PER_WARP;
  const int64_t first = (head * kDim + row0) * (kDim / 4) + lane;  // float4 index of row0
  const int64_t start = p.cu_seqlens[seq];
  const int64_t end = p.cu_seqlens[seq + 1];

  float4 s[ROWS_PER_WARP];
#pragma unroll
  for (int j = 0; j < ROWS_PER_WARP; ++j)
    s[j] = end > start ? __ldg(p.state + first + j * (kDim / 4)) : make_float4(0.f, 0.f, 0.f, 0.f);

  const float rate = expf(p.A_log[h]);
  const float bias = p.dt_bias[h];
  const float scale = gdn_effective_scale(p.scale);
  // ring[u] holds token t + u at the top of each group of PREFETCH tokens; the fully
  // unrolled inner loop keeps the ring in registers.
  TokenInputs ring[PREFETCH];
#pragma unroll
  for (int u = 0; u < PREFETCH; ++u)
    if (start + u < end) ring[u] = load_token(p, start + u, h, row0, lane);
  for (int64_t t0 = start; t0 < end; t0 += PREFETCH) {
#pragma unroll
    for (int u = 0; u < PREFETCH; ++u) {
      const int64_t t = t0 + u;
      if (t >= end) break;
      const TokenInputs in = ring[u];
      if (t + PREFETCH < end) ring[u] = load_token(p, t + PREFETCH, h, row0, lane);
      step(p, in, Gates{expf(-rate * gdn_softplus(in.a + bias)), gdn_beta(in.b), scale},
           (t * GDN_NUM_V_HEADS + h) * kDim + row0, lane, s);
    }
  }
#pragma unroll
  for (int j = 0; j < ROWS_PER_WARP; ++j) p.new_state[first + j * (kDim / 4)] = s[j];
}

}  // namespace

void gdn_prefill_baseline(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                          const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                          const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                          DLTensor* new_state, kh_stream_t stream) {
  const int64_t blocks = (cu_seqlens->shape[0] - 1) * GDN_NUM_V_HEADS * kBlocksPerHead;
  if (blocks <= 0) return;
  const PrefillArgs args{
      static_cast<const __nv_bfloat16*>(q->data),    static_cast<const __nv_bfloat16*>(k->data),
      static_cast<const __nv_bfloat16*>(v->data),    static_cast<const float4*>(state->data),
      static_cast<const float*>(A_log->data),        static_cast<const __nv_bfloat16*>(a->data),
      static_cast<const float*>(dt_bias->data),      static_cast<const __nv_bfloat16*>(b->data),
      static_cast<const int64_t*>(cu_seqlens->data), scale,
      static_cast<__nv_bfloat16*>(output->data),     static_cast<float4*>(new_state->data)};
  gdn_prefill_baseline_kernel<<<static_cast<unsigned>(blocks), WARPS_PER_BLOCK * 32, 0, stream>>>(args);
}
