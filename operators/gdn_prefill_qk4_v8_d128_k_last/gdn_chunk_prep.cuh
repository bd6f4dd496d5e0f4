// The chunked (WY) gated delta rule's preparation kernel, shared by the candidates that run it
// (loop/candidates/chunk_tc, chunk_ksplit; their notes give the algorithm): per (chunk, v head),
// K K^T and Q K^T by bf16 mma, the forward substitution in fp32, and the chunk's W, U^
// (transposed), P (fp16), lg (fp32) and fp16 q, k in stream-ordered scratch. Also the
// scratch layout and the warp-level primitives (ldmatrix, mma.sync, cp.async) that the pass
// kernel (gdn_chunk_pass.cuh) uses.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <kharness/kernel.h>
#include <stdint.h>

#include "gdn_gates.h"
#include "gdn_prefill_lane8.cuh"

namespace gdn_chunk_tc {

using gdn_lane8::PrefillArgs;

constexpr int kDim = GDN_HEAD_SIZE;  // 128
constexpr int kC = 64;               // tokens a chunk
constexpr int kRow = kDim + 8;       // shared row of a 128-wide fp16 tile: ldmatrix without bank conflicts
constexpr int kRowC = kC + 8;        // shared row of a 64-wide fp16 tile
constexpr int kOutRow = 16 + 8;      // shared row of a warp's output tile [t][16 v] (bf16)

// Scratch of one chunk: per v head W [t][k], U^ transposed [v][t], P [t][s] (fp16), lg [t]
// (fp32); then per q/k head q, k [t][k] (fp16). Every part is a multiple of 16 bytes.
constexpr int kWBytes = kC * kDim * 2;
constexpr int kUBytes = kDim * kC * 2;
constexpr int kPBytes = kC * kC * 2;
constexpr int kLgBytes = kC * 4;
constexpr int kVHeadBytes = kWBytes + kUBytes + kPBytes + kLgBytes;
constexpr int kQkBytes = 2 * kC * kDim * 2;
constexpr int64_t kChunkBytes = int64_t{GDN_NUM_V_HEADS} * kVHeadBytes + int64_t{GDN_NUM_QK_HEADS} * kQkBytes;

struct ChunkParts {
  __half* w;
  __half* ut;
  __half* p;
  float* lg;
  __half* q;
  __half* k;
};

__device__ __forceinline__ ChunkParts chunk_parts(char* scratch, int64_t chunk, int h) {
  char* c = scratch + chunk * kChunkBytes;
  char* v = c + static_cast<int64_t>(h) * kVHeadBytes;
  char* qk = c + int64_t{GDN_NUM_V_HEADS} * kVHeadBytes + static_cast<int64_t>(h / GDN_V_PER_QK) * kQkBytes;
  return ChunkParts{reinterpret_cast<__half*>(v),
                    reinterpret_cast<__half*>(v + kWBytes),
                    reinterpret_cast<__half*>(v + kWBytes + kUBytes),
                    reinterpret_cast<float*>(v + kWBytes + kUBytes + kPBytes),
                    reinterpret_cast<__half*>(qk),
                    reinterpret_cast<__half*>(qk + kQkBytes / 2)};
}

__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], const void* p) {
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}
__device__ __forceinline__ void ldsm_x4_trans(uint32_t (&r)[4], const void* p) {
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

// D += A B, A 16x16 row-major, B 16x8 "col", fp32 accumulators (PTX ISA m16n8k16 layout).
__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void mma_f16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint32_t half2_bits(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);  // .x, the low 16 bits, is lo
  return *reinterpret_cast<const uint32_t*>(&h);
}

// 8 bf16 -> 8 fp16 (exact for the magnitudes of unit-norm q and k rows).
__device__ __forceinline__ uint4 bf16x8_to_half8(uint4 r) {
  const unsigned w[4] = {r.x, r.y, r.z, r.w};
  unsigned o[4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
    o[i] = half2_bits(__uint_as_float(w[i] << 16), __uint_as_float(w[i] & 0xffff0000u));
  return make_uint4(o[0], o[1], o[2], o[3]);
}

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// Raises a kernel's dynamic shared-memory limit; each launcher calls it through a function-local
// static, so once per process and kernel, before the kernel's first launch.
template <class Kernel>
inline bool allow_smem(Kernel kernel, size_t bytes) {
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) ==
         cudaSuccess;
}

__device__ __forceinline__ int chunks_of(const int64_t* cu, int n) {
  return static_cast<int>((cu[n + 1] - cu[n] + kC - 1) / kC);
}

// Global chunk idx -> (sequence, first token, length); chunks numbered sequence by sequence.
// By one warp, 32 sequences a step: a sequence at a time would wait on one global read of
// cu_seqlens per sequence, serially (tens of microseconds for a batch of 50).
__device__ __forceinline__ bool find_chunk_warp(const int64_t* cu, int num_seqs, int idx, int64_t& tok0,
                                                int& len) {
  const int lane = threadIdx.x & 31;
  int acc = 0;  // chunks of the sequences before this step
  for (int n0 = 0; n0 < num_seqs; n0 += 32) {
    const int n = n0 + lane;
    int64_t first = 0, end = 0;
    if (n < num_seqs) {
      first = cu[n];
      end = cu[n + 1];
    }
    const int nc = static_cast<int>((end - first + kC - 1) / kC);
    int incl = nc;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += y;
    }
    const int before = acc + incl - nc;
    const unsigned hit = __ballot_sync(0xffffffffu, nc > 0 && idx >= before && idx < before + nc);
    if (hit) {
      const int src = __ffs(hit) - 1;
      const int64_t t0 = __shfl_sync(0xffffffffu, first, src) +
                         static_cast<int64_t>(idx - __shfl_sync(0xffffffffu, before, src)) * kC;
      const int64_t rest = __shfl_sync(0xffffffffu, end, src) - t0;
      tok0 = t0;
      len = static_cast<int>(rest < kC ? rest : kC);
      return true;
    }
    acc += __shfl_sync(0xffffffffu, incl, 31);
  }
  return false;
}

// The chunks of the sequences before seq (the global index of seq's first chunk), by every
// warp alike: each lane sums a stride of sequences, then the warp adds the lanes' sums.
__device__ __forceinline__ int chunks_before(const int64_t* cu, int seq) {
  const int lane = threadIdx.x & 31;
  int sum = 0;
  for (int n = lane; n < seq; n += 32) sum += chunks_of(cu, n);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  return sum;
}

// ---------------------------------------------------------------------------------------
// Kernel 1: prep. grid (max chunks, 8 v heads), 256 threads.
constexpr int kPrepThreads = 256;

struct __align__(16) PrepSmem {
  __nv_bfloat16 k[kC][kRow];
  __nv_bfloat16 q[kC][kRow];
  __nv_bfloat16 v[kC][kRow];
  float a[kC][kC];  // A, strictly lower triangular (zeros elsewhere)
  float lg[kC];
  float beta[kC];
  int64_t tok0;  // the block's chunk (find_chunk_warp), for every warp
  int len;
};

// k, q and v of the chunk into shared memory (zeros past L); the fp16 copies of k and q into
// scratch once per q/k head (by its even v head). Every read is issued before any write: the
// compiler cannot tell the scratch from the inputs, and a read after a write would wait out
// a global latency each.
__device__ __forceinline__ void prep_load_kqv(const PrefillArgs& p, PrepSmem& sm, const ChunkParts& out,
                                              int64_t tok0, int L, int h) {
  constexpr int kParts = kDim / 8;                       // 16-byte pieces of a row
  constexpr int kEach = 3 * kC * kParts / kPrepThreads;  // pieces a thread moves
  const int hq = h / GDN_V_PER_QK;
  uint4 raw[kEach];
#pragma unroll
  for (int j = 0; j < kEach; ++j) {
    const int idx = threadIdx.x + j * kPrepThreads;
    const int which = idx / (kC * kParts);  // 0 k, 1 q, 2 v
    const int t = (idx / kParts) % kC;
    const int part = idx % kParts;
    raw[j] = make_uint4(0u, 0u, 0u, 0u);
    if (t < L) {
      const int64_t row = which == 2 ? (tok0 + t) * GDN_NUM_V_HEADS + h : (tok0 + t) * GDN_NUM_QK_HEADS + hq;
      const __nv_bfloat16* src = which == 0 ? p.k : which == 1 ? p.q : p.v;
      raw[j] = *reinterpret_cast<const uint4*>(src + row * kDim + 8 * part);
    }
  }
  const bool write_qk = h % GDN_V_PER_QK == 0;
#pragma unroll
  for (int j = 0; j < kEach; ++j) {
    const int idx = threadIdx.x + j * kPrepThreads;
    const int which = idx / (kC * kParts);
    const int t = (idx / kParts) % kC;
    const int part = idx % kParts;
    __nv_bfloat16* row = which == 0 ? &sm.k[t][0] : which == 1 ? &sm.q[t][0] : &sm.v[t][0];
    *reinterpret_cast<uint4*>(row + 8 * part) = raw[j];
    if (write_qk && which < 2)
      *reinterpret_cast<uint4*>((which == 0 ? out.k : out.q) + t * kDim + 8 * part) = bf16x8_to_half8(raw[j]);
  }
}

// Inclusive prefix sum of the 64 log-decays, by warp 0.
__device__ __forceinline__ void prep_cumsum(float* lg) {
  const int lane = threadIdx.x;
  float x0 = lg[lane], x1 = lg[lane + 32];
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const float y0 = __shfl_up_sync(0xffffffffu, x0, o);
    const float y1 = __shfl_up_sync(0xffffffffu, x1, o);
    if (lane >= o) {
      x0 += y0;
      x1 += y1;
    }
  }
  const float total0 = __shfl_sync(0xffffffffu, x0, 31);
  lg[lane] = x0;
  lg[lane + 32] = x1 + total0;
}

// K K^T and Q K^T by bf16 mma: warp w owns rows 16 (w / 2) .. +15, columns 32 (w % 2) .. +31.
// Writes A (decayed, beta-scaled, strictly lower) to shared memory and P (fp16) to scratch.
__device__ __forceinline__ void prep_products(PrepSmem& sm, __half* P) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane >> 2, tg = lane & 3, mi = lane >> 3, mr = lane & 7;
  const int m0 = 16 * (warp >> 1), n0 = 32 * (warp & 1);
  float kk[4][4], qk[4][4];
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) kk[j][e] = qk[j][e] = 0.f;
  const __nv_bfloat16* ka = &sm.k[m0 + mr + 8 * (mi & 1)][8 * (mi >> 1)];
  const __nv_bfloat16* qa = &sm.q[m0 + mr + 8 * (mi & 1)][8 * (mi >> 1)];
  const __nv_bfloat16* kb = &sm.k[n0 + 8 * (mi >> 1) + mr][8 * (mi & 1)];
#pragma unroll
  for (int ks = 0; ks < kDim / 16; ++ks) {
    uint32_t af[4], aq[4], b01[4], b23[4];
    ldsm_x4(af, ka + 16 * ks);
    ldsm_x4(aq, qa + 16 * ks);
    ldsm_x4(b01, kb + 16 * ks);              // n tiles 0, 1 of the warp
    ldsm_x4(b23, kb + 16 * kRow + 16 * ks);  // n tiles 2, 3
    mma_bf16(kk[0], af, b01[0], b01[1]);
    mma_bf16(kk[1], af, b01[2], b01[3]);
    mma_bf16(kk[2], af, b23[0], b23[1]);
    mma_bf16(kk[3], af, b23[2], b23[3]);
    mma_bf16(qk[0], aq, b01[0], b01[1]);
    mma_bf16(qk[1], aq, b01[2], b01[3]);
    mma_bf16(qk[2], aq, b23[0], b23[1]);
    mma_bf16(qk[3], aq, b23[2], b23[3]);
  }
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int t = m0 + g + 8 * r;
      const int s = n0 + 8 * j + 2 * tg;
      float pv[2];
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int se = s + e;
        const float decay = se <= t ? expf(sm.lg[t] - sm.lg[se]) : 0.f;  // exponent <= 0 only
        sm.a[t][se] = se < t ? sm.beta[t] * decay * kk[j][2 * r + e] : 0.f;
        pv[e] = decay * qk[j][2 * r + e];
      }
      *reinterpret_cast<uint32_t*>(P + t * kC + s) = half2_bits(pv[0], pv[1]);
    }
}

// Forward substitution (I + A) X = R, one column of [W | U^] a thread, in registers; W to
// scratch [t][k], U^ transposed [v][t].
__device__ __forceinline__ void prep_solve(const PrepSmem& sm, const ChunkParts& out, int L) {
  const int c = threadIdx.x;
  float X[kC];
#pragma unroll
  for (int t = 0; t < kC; ++t) {
    float r = 0.f;
    if (t < L) {
      if (c < kDim) {
        r = sm.beta[t] * expf(sm.lg[t]) * __bfloat162float(sm.k[t][c]);
      } else {
        r = sm.beta[t] * __bfloat162float(sm.v[t][c - kDim]);
      }
    }
    X[t] = r;
  }
#pragma unroll
  for (int t = 1; t < kC; ++t) {
    float acc0 = X[t], acc1 = 0.f;  // two chains: half the dependent FMAs
#pragma unroll
    for (int s4 = 0; s4 < t; s4 += 4) {
      const float4 a4 = *reinterpret_cast<const float4*>(&sm.a[t][s4]);
      acc0 = fmaf(-a4.x, X[s4], acc0);
      if (s4 + 1 < t) acc1 = fmaf(-a4.y, X[s4 + 1], acc1);
      if (s4 + 2 < t) acc0 = fmaf(-a4.z, X[s4 + 2], acc0);
      if (s4 + 3 < t) acc1 = fmaf(-a4.w, X[s4 + 3], acc1);
    }
    X[t] = acc0 + acc1;
  }
  if (c < kDim) {
#pragma unroll
    for (int t = 0; t < kC; ++t) out.w[t * kDim + c] = __float2half_rn(X[t]);
  } else {
    uint4* row = reinterpret_cast<uint4*>(out.ut + (c - kDim) * kC);
#pragma unroll
    for (int i = 0; i < kC / 8; ++i)
      row[i] = make_uint4(half2_bits(X[8 * i], X[8 * i + 1]), half2_bits(X[8 * i + 2], X[8 * i + 3]),
                          half2_bits(X[8 * i + 4], X[8 * i + 5]), half2_bits(X[8 * i + 6], X[8 * i + 7]));
  }
}

// The block's chunk (first token tok0, length L) by warp 0, for every thread through shared
// memory; false past the last chunk (max_chunks over-counts), the same for the whole block.
__device__ __forceinline__ bool prep_find(const PrefillArgs& p, int num_seqs, PrepSmem& sm, int64_t& tok0,
                                          int& L) {
  if (threadIdx.x < 32) {
    int64_t t0 = 0;
    int len = 0;
    if (!find_chunk_warp(p.cu_seqlens, num_seqs, blockIdx.x, t0, len)) len = 0;
    if (threadIdx.x == 0) {
      sm.tok0 = t0;
      sm.len = len;
    }
  }
  __syncthreads();
  tok0 = sm.tok0;
  L = sm.len;
  return L != 0;
}

// The chunk's log-decays and betas (zeros for padded tokens: no decay, no write).
__device__ __forceinline__ void prep_gates(const PrefillArgs& p, PrepSmem& sm, int64_t tok0, int L, int h) {
  if (threadIdx.x < kC) {
    const int t = threadIdx.x;
    float l = 0.f, be = 0.f;
    if (t < L) {
      const int64_t vh = (tok0 + t) * GDN_NUM_V_HEADS + h;
      l = -expf(p.A_log[h]) * gdn_softplus(__bfloat162float(p.a[vh]) + p.dt_bias[h]);
      be = gdn_beta(__bfloat162float(p.b[vh]));
    }
    sm.lg[t] = l;
    sm.beta[t] = be;
  }
}

// The steps both preparations share: the block's chunk, its gates, k, q and v, the log-decay
// prefix, A and P (K K^T, Q K^T); false past the last chunk (block-uniform).
__device__ __forceinline__ bool prep_front(const PrefillArgs& p, int num_seqs, PrepSmem& sm, char* scratch,
                                           ChunkParts& out, int& L) {
  int64_t tok0;
  if (!prep_find(p, num_seqs, sm, tok0, L)) return false;
  const int h = blockIdx.y;
  out = chunk_parts(scratch, blockIdx.x, h);
  prep_gates(p, sm, tok0, L, h);
  prep_load_kqv(p, sm, out, tok0, L, h);
  __syncthreads();
  if (threadIdx.x < 32) prep_cumsum(sm.lg);
  __syncthreads();
  prep_products(sm, out.p);
  if (threadIdx.x < kC) out.lg[threadIdx.x] = sm.lg[threadIdx.x];
  __syncthreads();
  return true;
}

__global__ void __launch_bounds__(kPrepThreads)
    chunk_prep_kernel(PrefillArgs p, int num_seqs, char* scratch) {
  extern __shared__ float4 prep_smem[];
  PrepSmem& sm = *reinterpret_cast<PrepSmem*>(prep_smem);
  ChunkParts out;
  int L;
  if (!prep_front(p, num_seqs, sm, scratch, out, L)) return;  // block-uniform
  prep_solve(sm, out, L);
}

// The call's steps, also timed apart by loop/chunk_check.cu.
inline int64_t max_chunks(int64_t total, int64_t num_seqs) {  // >= the sum over sequences of ceil(len / 64)
  return (total + kC - 1) / kC + num_seqs;
}

inline void launch_prep(const PrefillArgs& args, int64_t num_seqs, int64_t chunks, char* scratch,
                        cudaStream_t stream) {
  static const bool allowed = allow_smem(chunk_prep_kernel, sizeof(PrepSmem));
  (void)allowed;
  chunk_prep_kernel<<<dim3(static_cast<unsigned>(chunks), GDN_NUM_V_HEADS), kPrepThreads, sizeof(PrepSmem),
                      stream>>>(args, static_cast<int>(num_seqs), scratch);
}

}  // namespace gdn_chunk_tc
