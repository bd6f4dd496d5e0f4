// The single-pass decode kernel that the CUDA baseline and the loop's candidates
// (loop/) instantiate. Decode is bound by the state: 64 KB read and 64 KB written per
// (batch element, v head) against 256 bytes of q, k and v. So: one warp per k-last state
// row (128 floats = 32 lanes x float4, one coalesced 512-byte load), kRows rows per warp
// for loads in flight, kWarps warps per block, and a single pass over the state: k.S and
// q.S of the OLD row are reduced together (warp shuffles), and
//   old_v = g (k.S),  delta = new_v - old_v = beta (v - old_v),
//   S' = g S + k delta,  out = scale q.S' = scale (g (q.S) + (q.k) delta),
// which is the reference's update with the decay folded in. kStream marks the state as
// touched once: loads that skip L1 (ld.global.nc.L1::no_allocate) and evict-first stores
// (st.global.cs); on the H200 they were 0.6-5% slower (skill.md). kHoistV loads the warp's kRows
// values of v with the state, before any store: otherwise v[row0 + j] is read after row j - 1's
// stores, which may alias it for all the compiler knows, so the rows' loads of v form a chain
// of kRows - 1 round trips behind the reductions (loop/candidates/hoist_v).
#pragma once

#include <cuda_bf16.h>
#include <kharness/kernel.h>

#include "gdn_gates.h"

namespace gdn_decode {

constexpr int kDim = GDN_HEAD_SIZE;

struct DecodeArgs {
  const __nv_bfloat16* q;
  const __nv_bfloat16* k;
  const __nv_bfloat16* v;
  const float4* state;
  const float* A_log;
  const __nv_bfloat16* a;
  const float* dt_bias;
  const __nv_bfloat16* b;
  float scale;
  __nv_bfloat16* out;
  float4* new_state;
};

__device__ __forceinline__ float4 load_bf16x4(const __nv_bfloat16* p) {
  const uint2 raw = *reinterpret_cast<const uint2*>(p);
  const float2 lo = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.x));
  const float2 hi = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.y));
  return make_float4(lo.x, lo.y, hi.x, hi.y);
}

__device__ __forceinline__ float dot4(float4 x, float4 y) {
  return x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
}

template <bool kStream>
__device__ __forceinline__ float4 load_state(const float4* p) {
  if constexpr (kStream) {
    float4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                 : "l"(p));
    return r;
  } else {
    return __ldg(p);
  }
}

template <bool kStream>
__device__ __forceinline__ void store_state(float4* p, float4 v) {
  if constexpr (kStream) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

template <int kRows, int kWarps, bool kStream, bool kHoistV = false>
__global__ void __launch_bounds__(kWarps * 32) decode_kernel(DecodeArgs p) {
  constexpr int kRowsPerBlock = kRows * kWarps;
  static_assert(kDim % kRowsPerBlock == 0, "a head's 128 rows must split evenly into blocks");
  constexpr int kBlocksPerHead = kDim / kRowsPerBlock;
  const int64_t head = blockIdx.x / kBlocksPerHead;  // batch * 8 + v head
  const int tile = static_cast<int>(blockIdx.x % kBlocksPerHead);
  const int h = static_cast<int>(head % GDN_NUM_V_HEADS);
  const int64_t qk_head = (head / GDN_NUM_V_HEADS) * GDN_NUM_QK_HEADS + h / GDN_V_PER_QK;
  const int lane = threadIdx.x % 32;
  const int row0 = tile * kRowsPerBlock + (threadIdx.x / 32) * kRows;

  // The state loads go first so that they are in flight while the rest is computed.
  const int64_t first = (head * kDim + row0) * (kDim / 4) + lane;  // float4 index
  float4 s[kRows];
#pragma unroll
  for (int j = 0; j < kRows; ++j) s[j] = load_state<kStream>(p.state + first + j * (kDim / 4));
  [[maybe_unused]] float v_rows[kRows];
  if constexpr (kHoistV) {
#pragma unroll
    for (int j = 0; j < kRows; ++j) v_rows[j] = __bfloat162float(p.v[head * kDim + row0 + j]);
  }

  const float4 k4 = load_bf16x4(p.k + qk_head * kDim + lane * 4);
  const float4 q4 = load_bf16x4(p.q + qk_head * kDim + lane * 4);
  const float decay = gdn_decay(__bfloat162float(p.a[head]), p.A_log[h], p.dt_bias[h]);
  const float beta = gdn_beta(__bfloat162float(p.b[head]));

  float qk = dot4(q4, k4);
  float ks[kRows], qs[kRows];
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    ks[j] = dot4(k4, s[j]);
    qs[j] = dot4(q4, s[j]);
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    qk += __shfl_xor_sync(0xffffffffu, qk, offset);
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      ks[j] += __shfl_xor_sync(0xffffffffu, ks[j], offset);
      qs[j] += __shfl_xor_sync(0xffffffffu, qs[j], offset);
    }
  }

  const float scale = gdn_effective_scale(p.scale);
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    const float old_v = decay * ks[j];
    float v_row;
    if constexpr (kHoistV) {
      v_row = v_rows[j];
    } else {
      v_row = __bfloat162float(p.v[head * kDim + row0 + j]);
    }
    const float delta = beta * (v_row - old_v);
    const float4 n = make_float4(decay * s[j].x + k4.x * delta, decay * s[j].y + k4.y * delta,
                                 decay * s[j].z + k4.z * delta, decay * s[j].w + k4.w * delta);
    store_state<kStream>(p.new_state + first + j * (kDim / 4), n);
    if (lane == j) p.out[head * kDim + row0 + j] = __float2bfloat16(scale * (decay * qs[j] + qk * delta));
  }
}

inline DecodeArgs make_args(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                            const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                            const DLTensor* b, float scale, DLTensor* output, DLTensor* new_state) {
  return DecodeArgs{static_cast<const __nv_bfloat16*>(q->data),
                    static_cast<const __nv_bfloat16*>(k->data),
                    static_cast<const __nv_bfloat16*>(v->data),
                    static_cast<const float4*>(state->data),
                    static_cast<const float*>(A_log->data),
                    static_cast<const __nv_bfloat16*>(a->data),
                    static_cast<const float*>(dt_bias->data),
                    static_cast<const __nv_bfloat16*>(b->data),
                    scale,
                    static_cast<__nv_bfloat16*>(output->data),
                    static_cast<float4*>(new_state->data)};
}

template <int kRows, int kWarps, bool kStream, bool kHoistV = false>
void launch(const DecodeArgs& args, int64_t batch, kh_stream_t stream) {
  const int64_t blocks = batch * GDN_NUM_V_HEADS * (kDim / (kRows * kWarps));
  if (blocks == 0) return;
  decode_kernel<kRows, kWarps, kStream, kHoistV>
      <<<static_cast<unsigned>(blocks), kWarps * 32, 0, stream>>>(args);
}

}  // namespace gdn_decode
