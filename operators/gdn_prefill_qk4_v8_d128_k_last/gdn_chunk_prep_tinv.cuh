// The chunked path's preparation with the triangular solve on the tensor cores: the same
// scratch as chunk_prep_kernel (gdn_chunk_prep.cuh), made as T = (I + A)^-1 once per chunk
// and [W | U^] = T [beta e^g K | beta V] by mma.
//
// Why: chunk_prep_kernel solves (I + A) X = R one column of X a thread, 2016 dependent FMAs
// each over 256 columns; ncu (8192 tokens, 1032 blocks) shows it issue-bound, FFMA 42% of its
// instructions, ~100 us, as long as a third of the whole call on mid-size batches. Here the
// inverse costs ~64^3/6 FMAs a chunk, blocked in 16 x 16 tiles (four diagonal inverses of 16
// dependent rows, then three levels of off-diagonal tiles), and the product 64 mma a warp.
// Precision: T and R as fp16 operands with fp32 accumulators, the same rounding W and U^ get
// when they are stored in fp16 for the pass.
#pragma once

#include "gdn_chunk_prep.cuh"

namespace gdn_chunk_tc {

struct __align__(16) PrepTinvSmem {
  PrepSmem base;           // k, q, v, A, lg, beta, the chunk; k and v become R in place (fp16)
  __half t[kC][kRowC];     // T in fp16, the mma's A operand
  __half ut[kDim][kRowC];  // U^ transposed, staged for whole-row stores
  float m[3][16][16];      // a level's partial sums, one tile a block of the level
};

// T in fp32 over q's storage (q is no longer read after the products).
__device__ __forceinline__ float (*tinv_tf(PrepTinvSmem& sm))[kC] {
  return reinterpret_cast<float(*)[kC]>(&sm.base.q[0][0]);
}

// T = (I + A)^-1, A strictly lower: the diagonal 16 x 16 inverses by forward substitution (a
// column a thread), then T_ij = -T_ii sum_{k=j}^{i-1} A_ik T_kj level by level (i - j = 1, 2, 3).
__device__ __forceinline__ void tinv_invert(PrepTinvSmem& sm) {
  float(*tf)[kC] = tinv_tf(sm);
  const float(*a)[kC] = sm.base.a;
  for (int i = threadIdx.x; i < kC * kC; i += kPrepThreads) tf[i / kC][i % kC] = 0.f;
  __syncthreads();
  if (threadIdx.x < kC) {
    const int b = 16 * (threadIdx.x / 16), j = threadIdx.x % 16;
    float x[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      float acc = i == j ? 1.f : 0.f;
#pragma unroll
      for (int s = 0; s < i; ++s) acc = fmaf(-a[b + i][b + s], x[s], acc);
      x[i] = i < j ? 0.f : acc;
    }
#pragma unroll
    for (int i = 0; i < 16; ++i) tf[b + i][b + j] = x[i];
  }
  __syncthreads();
  for (int d = 1; d < 4; ++d) {
    const int tiles = 4 - d;  // blocks (i, i - d), i = d .. 3
    for (int e = threadIdx.x; e < tiles * 256; e += kPrepThreads) {
      const int i = d + e / 256, r = (e % 256) / 16, c = e % 16, j = i - d;
      float acc = 0.f;
      for (int u = 16 * j; u < 16 * i; ++u) acc = fmaf(a[16 * i + r][u], tf[u][16 * j + c], acc);
      sm.m[e / 256][r][c] = acc;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < tiles * 256; e += kPrepThreads) {
      const int i = d + e / 256, r = (e % 256) / 16, c = e % 16, j = i - d;
      float acc = 0.f;
#pragma unroll
      for (int s = 0; s < 16; ++s) acc = fmaf(tf[16 * i + r][16 * i + s], sm.m[e / 256][s][c], acc);
      tf[16 * i + r][16 * j + c] = -acc;
    }
    __syncthreads();
  }
}

// 8 bf16 times f -> 8 fp16, each product rounded once, as f * float(x) element by element.
__device__ __forceinline__ uint4 scaled_half8(uint4 r, float f) {
  const unsigned w[4] = {r.x, r.y, r.z, r.w};
  unsigned o[4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
    o[i] = half2_bits(f * __uint_as_float(w[i] << 16), f * __uint_as_float(w[i] & 0xffff0000u));
  return make_uint4(o[0], o[1], o[2], o[3]);
}

// kVec's operands: each token's factors once (beta e^lg, beta) instead of once an element, and 8
// values a thread a step through 16-byte shared loads and stores instead of 2-byte ones. The same
// products in the same order as below: the same fp16 values.
__device__ __forceinline__ void tinv_operands_vec(PrepTinvSmem& sm) {
  PrepSmem& b = sm.base;
  const float(*tf)[kC] = tinv_tf(sm);
  float* kf = &sm.m[0][0][0];  // free once T is made
  if (threadIdx.x < kC) kf[threadIdx.x] = b.beta[threadIdx.x] * expf(b.lg[threadIdx.x]);
  __syncthreads();
  constexpr int kParts = kDim / 8;  // 16-byte pieces of a row
  for (int i = threadIdx.x; i < kC * kParts; i += kPrepThreads) {
    const int t = i / kParts, c = 8 * (i % kParts);
    uint4* k8 = reinterpret_cast<uint4*>(&b.k[t][c]);
    uint4* v8 = reinterpret_cast<uint4*>(&b.v[t][c]);
    const uint4 kr = *k8, vr = *v8;
    *k8 = scaled_half8(kr, kf[t]);
    *v8 = scaled_half8(vr, b.beta[t]);
  }
  for (int i = threadIdx.x; i < kC * kC / 8; i += kPrepThreads) {
    const int r = i / (kC / 8), c = 8 * (i % (kC / 8));
    const float4 lo = *reinterpret_cast<const float4*>(&tf[r][c]);
    const float4 hi = *reinterpret_cast<const float4*>(&tf[r][c + 4]);
    *reinterpret_cast<uint4*>(&sm.t[r][c]) = make_uint4(half2_bits(lo.x, lo.y), half2_bits(lo.z, lo.w),
                                                        half2_bits(hi.x, hi.y), half2_bits(hi.z, hi.w));
  }
}

// R = [beta e^lg K | beta V] in fp16 over k's and v's storage, and T to fp16.
__device__ __forceinline__ void tinv_operands(PrepTinvSmem& sm) {
  PrepSmem& b = sm.base;
  const float(*tf)[kC] = tinv_tf(sm);
  for (int i = threadIdx.x; i < kC * kDim; i += kPrepThreads) {
    const int t = i / kDim, c = i % kDim;
    const float rk = b.beta[t] * expf(b.lg[t]) * __bfloat162float(b.k[t][c]);
    const float rv = b.beta[t] * __bfloat162float(b.v[t][c]);
    reinterpret_cast<__half*>(&b.k[t][0])[c] = __float2half_rn(rk);
    reinterpret_cast<__half*>(&b.v[t][0])[c] = __float2half_rn(rv);
  }
  for (int i = threadIdx.x; i < kC * kC; i += kPrepThreads)
    sm.t[i / kC][i % kC] = __float2half_rn(tf[i / kC][i % kC]);
}

// [W | U^] = T R: warp w owns 32 columns (w < 4: W's, else U^'s), all 64 tokens, in two
// halves of 32 tokens (2 m tiles x 4 n tiles x 4 k steps each: 32 accumulators, no spills at
// two blocks an SM). W goes straight to scratch (kStageW: through shared memory over T's fp32
// copy, no longer read, for whole 16-byte rows: a thread's 4-byte stores use 22 of a sector's 32
// bytes); U^ through sm.ut, transposed.
template <bool kStageW = false>
__device__ __forceinline__ void tinv_product(PrepTinvSmem& sm, const ChunkParts& out) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane >> 2, tg = lane & 3, mi = lane >> 3, mr = lane & 7;
  const bool is_u = warp >= 4;
  const int c0 = 32 * (warp % 4);
  const __half* r = reinterpret_cast<const __half*>(is_u ? &sm.base.v[0][0] : &sm.base.k[0][0]);
  // B operand, .trans: rows of R are tokens (the k steps), columns the warp's 32
  const __half* rb = r + (mr + 8 * (mi & 1)) * kRow + 8 * (mi >> 1) + c0;
  const __half* ta = &sm.t[mr + 8 * (mi & 1)][8 * (mi >> 1)];
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    float acc[2][4][4];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
      for (int nt = 0; nt < 4; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[mt][nt][e] = 0.f;
#pragma unroll
    for (int ks = 0; ks < kC / 16; ++ks) {
      uint32_t af[2][4];
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) ldsm_x4(af[mt], ta + 16 * (2 * half + mt) * kRowC + 16 * ks);
#pragma unroll
      for (int np = 0; np < 2; ++np) {
        uint32_t bk[4];
        ldsm_x4_trans(bk, rb + 16 * ks * kRow + 16 * np);
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
          mma_f16(acc[mt][2 * np], af[mt], bk[0], bk[1]);
          mma_f16(acc[mt][2 * np + 1], af[mt], bk[2], bk[3]);
        }
      }
    }
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
      for (int nt = 0; nt < 4; ++nt)
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          const int t = 16 * (2 * half + mt) + g + 8 * hi, c = c0 + 8 * nt + 2 * tg;
          const float x0 = acc[mt][nt][2 * hi], x1 = acc[mt][nt][2 * hi + 1];
          if (is_u) {
            sm.ut[c][t] = __float2half_rn(x0);
            sm.ut[c + 1][t] = __float2half_rn(x1);
          } else if constexpr (kStageW) {
            *reinterpret_cast<uint32_t*>(&sm.base.q[t][c]) = half2_bits(x0, x1);
          } else {
            *reinterpret_cast<uint32_t*>(out.w + t * kDim + c) = half2_bits(x0, x1);
          }
        }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kDim * (kC / 8); i += kPrepThreads)
    reinterpret_cast<uint4*>(out.ut)[i] = *reinterpret_cast<const uint4*>(&sm.ut[i / 8][8 * (i % 8)]);
  if constexpr (kStageW) {
    for (int i = threadIdx.x; i < kC * (kDim / 8); i += kPrepThreads)
      reinterpret_cast<uint4*>(out.w)[i] = *reinterpret_cast<const uint4*>(&sm.base.q[i / 16][8 * (i % 16)]);
  }
}

// kVec (ksplit_vec24): tinv_operands_vec and W staged for 16-byte stores.
// kPdl (ksplit_tinv24_pdl): the pass, launched as this grid's programmatic dependent, may start once
// every block got here. Its prologue reads only inputs and it waits for this grid's completion
// (griddepcontrol.wait) before it touches the scratch, so the trigger can come first: the dependents
// launch only once every block of this grid has started (its last wave resident), so they take only
// what this grid leaves free on the SMs.
template <bool kVec = false, bool kPdl = false>
__global__ void __launch_bounds__(kPrepThreads, 2)
    chunk_prep_tinv_kernel(PrefillArgs p, int num_seqs, char* scratch) {
  if constexpr (kPdl) asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  extern __shared__ float4 prep_tinv_smem[];
  PrepTinvSmem& sm = *reinterpret_cast<PrepTinvSmem*>(prep_tinv_smem);
  ChunkParts out;
  int L;
  if (!prep_front(p, num_seqs, sm.base, scratch, out, L)) return;  // block-uniform
  tinv_invert(sm);
  if constexpr (kVec) {
    tinv_operands_vec(sm);
  } else {
    tinv_operands(sm);
  }
  __syncthreads();
  tinv_product<kVec>(sm, out);
}

template <bool kVec, bool kPdl = false>
void launch_prep_tinv_as(const PrefillArgs& args, int64_t num_seqs, int64_t chunks, char* scratch,
                         cudaStream_t stream) {
  static const bool allowed = allow_smem(chunk_prep_tinv_kernel<kVec, kPdl>, sizeof(PrepTinvSmem));
  (void)allowed;
  chunk_prep_tinv_kernel<kVec, kPdl>
      <<<dim3(static_cast<unsigned>(chunks), GDN_NUM_V_HEADS), kPrepThreads, sizeof(PrepTinvSmem), stream>>>(
          args, static_cast<int>(num_seqs), scratch);
}

inline void launch_prep_tinv(const PrefillArgs& args, int64_t num_seqs, int64_t chunks, char* scratch,
                             cudaStream_t stream) {
  launch_prep_tinv_as<false>(args, num_seqs, chunks, scratch, stream);
}

inline void launch_prep_vec(const PrefillArgs& args, int64_t num_seqs, int64_t chunks, char* scratch,
                            cudaStream_t stream) {
  launch_prep_tinv_as<true>(args, num_seqs, chunks, scratch, stream);
}

// The same preparation, releasing its programmatic dependent early: pair it with run<..., kPdl = true>.
// Either half alone is still correct (no trigger: the dependent launches at this grid's end; no
// dependent: the trigger does nothing).
inline void launch_prep_tinv_pdl(const PrefillArgs& args, int64_t num_seqs, int64_t chunks, char* scratch,
                                 cudaStream_t stream) {
  launch_prep_tinv_as<false, true>(args, num_seqs, chunks, scratch, stream);
}

// ksplit_vecpdl24: the lean operands and W stores of launch_prep_vec, releasing the pass early.
inline void launch_prep_vec_pdl(const PrefillArgs& args, int64_t num_seqs, int64_t chunks, char* scratch,
                                cudaStream_t stream) {
  launch_prep_tinv_as<true, true>(args, num_seqs, chunks, scratch, stream);
}

}  // namespace gdn_chunk_tc
