// The lane8 kernel of gdn_prefill (loop/candidates/lane8, promoted on the H200 on
// 2026-12-04): the token-by-token gated delta rule, a k-last state row over 8 lanes, the
// gates once per token, k and q staged by cp.async. Its notes: loop/candidates/lane8/kernel.cu.
// A header so that later candidates (chunk_tc's short batches) run the same kernel.
#pragma once

#include <cuda_bf16.h>
#include <kharness/kernel.h>
#include <stdint.h>

#include "gdn_gates.h"

namespace gdn_lane8 {

constexpr int kDim = GDN_HEAD_SIZE;  // 128
constexpr int kChunk = 32;           // tokens staged at once (one per lane for the gates)

struct PrefillArgs {
  const __nv_bfloat16* q;
  const __nv_bfloat16* k;
  const __nv_bfloat16* v;
  const float* state;
  const float* A_log;
  const __nv_bfloat16* a;
  const float* dt_bias;
  const __nv_bfloat16* b;
  const int64_t* cu_seqlens;
  float scale;
  __nv_bfloat16* out;
  float* new_state;
};

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait1() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }

// 8 bf16 (one uint4) -> 8 floats.
__device__ __forceinline__ void bf16x8_to_float(uint4 r, float* f) {
  const unsigned w[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __uint_as_float(w[i] << 16);
    f[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
  }
}

template <int W>
struct __align__(16) Smem {
  __nv_bfloat16 kq[2][2][kChunk][kDim];  // [buffer][k, q][token][element]
  float gate[W][2][kChunk];              // [warp][decay, beta][token]
  float vrow[W][kChunk][4];              // [warp][token][row of the warp]
  __align__(8) __nv_bfloat16 orow[W][kChunk][4];
};

template <int W>
__global__ void __launch_bounds__(W * 32) gdn_prefill_lane8_kernel(PrefillArgs p) {
  constexpr int kRowsPerBlock = 4 * W;
  constexpr int kBlocksPerHead = kDim / kRowsPerBlock;
  __shared__ Smem<W> sm;

  const int64_t head = blockIdx.x / kBlocksPerHead;  // sequence * 8 + v head
  const int64_t seq = head / GDN_NUM_V_HEADS;
  const int h = static_cast<int>(head % GDN_NUM_V_HEADS);
  const int hq = h / GDN_V_PER_QK;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int grp = lane >> 3;  // which of the warp's 4 rows
  const int sub = lane & 7;   // which 16 elements of the row: 64c + 8 sub + x, c in {0,1}, x in 0..7
  const int wrow0 = static_cast<int>(blockIdx.x % kBlocksPerHead) * kRowsPerBlock + warp * 4;
  const int row = wrow0 + grp;
  const int64_t start = p.cu_seqlens[seq];
  const int64_t end = p.cu_seqlens[seq + 1];
  const int64_t row_base = (head * kDim + row) * kDim;

  float s[16];
#pragma unroll
  for (int c = 0; c < 2; ++c)
#pragma unroll
    for (int x4 = 0; x4 < 2; ++x4) {
      float4 f = make_float4(0.f, 0.f, 0.f, 0.f);
      if (end > start) f = *reinterpret_cast<const float4*>(p.state + row_base + 64 * c + 8 * sub + 4 * x4);
      s[8 * c + 4 * x4 + 0] = f.x;
      s[8 * c + 4 * x4 + 1] = f.y;
      s[8 * c + 4 * x4 + 2] = f.z;
      s[8 * c + 4 * x4 + 3] = f.w;
    }

  const float rate = expf(p.A_log[h]);
  const float bias = p.dt_bias[h];
  const float scale = gdn_effective_scale(p.scale);

  // Stage k, q of tokens t0 .. t0+31 (those < end) into buffer buf.
  auto stage = [&](int64_t t0, int buf) {
    for (int idx = threadIdx.x; idx < 2 * kChunk * 16; idx += W * 32) {
      const int which = idx / (kChunk * 16);
      const int tok = (idx / 16) % kChunk;
      const int part = idx % 16;
      const int64_t t = t0 + tok;
      if (t < end) {
        const __nv_bfloat16* src = (which == 0 ? p.k : p.q) + (t * GDN_NUM_QK_HEADS + hq) * kDim + part * 8;
        cp_async16(&sm.kq[buf][which][tok][part * 8], src);
      }
    }
  };
  // Per-lane raw inputs of token t0 + lane, one chunk ahead.
  __nv_bfloat16 ra = __float2bfloat16(0.f), rb = __float2bfloat16(0.f);
  uint2 rv = make_uint2(0u, 0u);
  auto load_raw = [&](int64_t t0) {
    const int64_t t = t0 + lane;
    if (t < end) {
      const int64_t vh = t * GDN_NUM_V_HEADS + h;
      ra = p.a[vh];
      rb = p.b[vh];
      rv = *reinterpret_cast<const uint2*>(p.v + vh * kDim + wrow0);
    }
  };

  if (start < end) {
    stage(start, 0);
    load_raw(start);
  }
  cp_async_commit();

  int buf = 0;
  for (int64_t t0 = start; t0 < end; t0 += kChunk, buf ^= 1) {
    const int n = static_cast<int>((end - t0 < kChunk ? end - t0 : int64_t{kChunk}));
    // Gates and v of this chunk, lane-parallel.
    {
      const float g = expf(-rate * gdn_softplus(__bfloat162float(ra) + bias));
      const float be = gdn_beta(__bfloat162float(rb));
      sm.gate[warp][0][lane] = g;
      sm.gate[warp][1][lane] = be;
      sm.vrow[warp][lane][0] = __uint_as_float(rv.x << 16);
      sm.vrow[warp][lane][1] = __uint_as_float(rv.x & 0xffff0000u);
      sm.vrow[warp][lane][2] = __uint_as_float(rv.y << 16);
      sm.vrow[warp][lane][3] = __uint_as_float(rv.y & 0xffff0000u);
    }
    // Next chunk in flight: its raw per-lane inputs and its k, q into the other buffer (whose
    // readers all passed the __syncthreads at the end of the previous iteration).
    if (t0 + kChunk < end) {
      load_raw(t0 + kChunk);
      stage(t0 + kChunk, buf ^ 1);
    }
    cp_async_commit();
    cp_async_wait1();  // this thread's copies of the current chunk have landed
    __syncthreads();   // everyone's have

    const __nv_bfloat16* kbase = &sm.kq[buf][0][0][0];
    const __nv_bfloat16* qbase = &sm.kq[buf][1][0][0];
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
      if (u >= n) break;
      float kf[16], qf[16];
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        bf16x8_to_float(*reinterpret_cast<const uint4*>(kbase + u * kDim + 64 * c + 8 * sub), kf + 8 * c);
        bf16x8_to_float(*reinterpret_cast<const uint4*>(qbase + u * kDim + 64 * c + 8 * sub), qf + 8 * c);
      }
      const float g = sm.gate[warp][0][u];
      const float be = sm.gate[warp][1][u];
      const float vj = sm.vrow[warp][u][grp];
      float ks0 = 0.f, ks1 = 0.f, ks2 = 0.f, ks3 = 0.f;
      float qs0 = 0.f, qs1 = 0.f, qk = 0.f;
#pragma unroll
      for (int i = 0; i < 16; i += 4) {
        ks0 = fmaf(kf[i + 0], s[i + 0], ks0);
        ks1 = fmaf(kf[i + 1], s[i + 1], ks1);
        ks2 = fmaf(kf[i + 2], s[i + 2], ks2);
        ks3 = fmaf(kf[i + 3], s[i + 3], ks3);
        qs0 = fmaf(qf[i + 0], s[i + 0], qs0);
        qs0 = fmaf(qf[i + 1], s[i + 1], qs0);
        qs1 = fmaf(qf[i + 2], s[i + 2], qs1);
        qs1 = fmaf(qf[i + 3], s[i + 3], qs1);
      }
#pragma unroll
      for (int i = 0; i < 16; ++i) qk = fmaf(qf[i], kf[i], qk);
      float ks = (ks0 + ks1) + (ks2 + ks3);
      float qs = qs0 + qs1;
#pragma unroll
      for (int off = 4; off > 0; off >>= 1) {  // within the 8-lane group of this row
        ks += __shfl_xor_sync(0xffffffffu, ks, off);
        qs += __shfl_xor_sync(0xffffffffu, qs, off);
        qk += __shfl_xor_sync(0xffffffffu, qk, off);
      }
      const float old_v = g * ks;
      const float delta = be * (vj - old_v);
#pragma unroll
      for (int i = 0; i < 16; ++i) s[i] = fmaf(g, s[i], kf[i] * delta);
      if (sub == 0) sm.orow[warp][u][grp] = __float2bfloat16(scale * (g * qs + qk * delta));
    }
    __syncwarp();
    if (lane < n) {
      const int64_t t = t0 + lane;
      *reinterpret_cast<uint2*>(p.out + (t * GDN_NUM_V_HEADS + h) * kDim + wrow0) =
          *reinterpret_cast<const uint2*>(&sm.orow[warp][lane][0]);
    }
    __syncthreads();  // buffer buf and the per-warp arrays are free for the next iteration
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");

#pragma unroll
  for (int c = 0; c < 2; ++c)
#pragma unroll
    for (int x4 = 0; x4 < 2; ++x4)
      *reinterpret_cast<float4*>(p.new_state + row_base + 64 * c + 8 * sub + 4 * x4) = make_float4(
          s[8 * c + 4 * x4 + 0], s[8 * c + 4 * x4 + 1], s[8 * c + 4 * x4 + 2], s[8 * c + 4 * x4 + 3]);
}

// The solution's arguments from the kernel ABI's tensors.
inline PrefillArgs prefill_args(const DLTensor* q, const DLTensor* k, const DLTensor* v,
                                const DLTensor* state, const DLTensor* A_log, const DLTensor* a,
                                const DLTensor* dt_bias, const DLTensor* b, const DLTensor* cu_seqlens,
                                float scale, DLTensor* output, DLTensor* new_state) {
  return PrefillArgs{
      static_cast<const __nv_bfloat16*>(q->data),    static_cast<const __nv_bfloat16*>(k->data),
      static_cast<const __nv_bfloat16*>(v->data),    static_cast<const float*>(state->data),
      static_cast<const float*>(A_log->data),        static_cast<const __nv_bfloat16*>(a->data),
      static_cast<const float*>(dt_bias->data),      static_cast<const __nv_bfloat16*>(b->data),
      static_cast<const int64_t*>(cu_seqlens->data), scale,
      static_cast<__nv_bfloat16*>(output->data),     static_cast<float*>(new_state->data)};
}

inline void launch(const PrefillArgs& args, int64_t num_seqs, cudaStream_t stream) {
  const int64_t heads = num_seqs * GDN_NUM_V_HEADS;
  if (num_seqs >= 4) {  // 4 warps (16 rows) a block: more warps resident for large batches
    gdn_prefill_lane8_kernel<4><<<static_cast<unsigned>(heads * (kDim / 16)), 128, 0, stream>>>(args);
  } else {  // 2 warps a block: a single sequence's 1024 rows spread over 128 blocks (SMs)
    gdn_prefill_lane8_kernel<2><<<static_cast<unsigned>(heads * (kDim / 8)), 64, 0, stream>>>(args);
  }
}

}  // namespace gdn_lane8
