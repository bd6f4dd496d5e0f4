// CUDA baseline for gdn_prefill_qk4_v8_d128_k_last: the token-by-token recurrence with the
// state in registers. Each k-last state row (a column of S = [K, V]) evolves on its own
// given the token's k, q, v[row] and gates, so a warp owns ROWS_PER_WARP rows (32 lanes x
// float4 = one row) for a whole sequence, with no block-level synchronisation at all:
//   old_v = g (k.S),  delta = beta (v - old_v),  S' = g S + k delta,
//   out = scale q.S' = scale (g (q.S) + (q.k) delta),
// k.S, q.S of every row and q.k reduced together by shuffles. The next token's inputs
// are loaded before the current one is computed, to hide their latency.
// Blocks: one per (sequence, v head, tile of ROWS_PER_WARP * WARPS_PER_BLOCK rows).
//
// kh:param ROWS_PER_WARP in {1,2,4,8}  state rows each warp keeps in registers
// kh:param WARPS_PER_BLOCK in {1,2,4}  warps per block (the V tile is ROWS_PER_WARP * WARPS_PER_BLOCK)
#include <cuda_bf16.h>
#include <kharness/kernel.h>

#include "gdn_gates.h"

#ifndef ROWS_PER_WARP
#define ROWS_PER_WARP 2
#endif
#ifndef WARPS_PER_BLOCK
#define WARPS_PER_BLOCK 2
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
  TokenInputs next;
  if (end > start) next = load_token(p, start, h, row0, lane);
  for (int64_t t = start; t < end; ++t) {
    const TokenInputs in = next;
    if (t + 1 < end) next = load_token(p, t + 1, h, row0, lane);
    const float decay = expf(-rate * gdn_softplus(in.a + bias));
    const float beta = gdn_beta(in.b);

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
    const int64_t out_row = (t * GDN_NUM_V_HEADS + h) * kDim + row0;
#pragma unroll
    for (int j = 0; j < ROWS_PER_WARP; ++j) {
      const float old_v = decay * ks[j];
      const float delta = beta * (in.v[j] - old_v);
      s[j] = make_float4(decay * s[j].x + in.k4.x * delta, decay * s[j].y + in.k4.y * delta,
                         decay * s[j].z + in.k4.z * delta, decay * s[j].w + in.k4.w * delta);
      if (lane == j) p.out[out_row + j] = __float2bfloat16(scale * (decay * qs[j] + qk * delta));
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
