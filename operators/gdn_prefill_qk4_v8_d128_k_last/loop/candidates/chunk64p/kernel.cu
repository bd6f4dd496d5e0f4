// gdn_prefill chunk64p: chunk64 (the chunkwise-parallel WY / UT form of the gated delta rule,
// float32 on CUDA cores; sequential depth T/64 chunk steps instead of T token steps of
// ~0.7 us) plus two changes to its sequential pass:
//  - the next chunk's inputs (W, P, U tile, lg from the scratch, q and k: ~90 KB) are copied
//    by cp.async into a staging area while the current chunk is computed, so a chunk step no
//    longer waits ~1-2 us for L2/HBM (214 KB shared memory with 16 V columns a block);
//  - a single sequence uses 8 V columns a block (16 blocks a head, 128 threads, one
//    warp a scheduler): it occupies 128 SMs instead of 64, halving the
//    per-block work of a chunk step.
// Per chunk of L <= 64 tokens of one v head, with lg_t = sum_{s<=t} log g_t (log-space
// cumulative decay, so no underflowed ratio is ever formed) and gamma_t = exp(lg_t):
//   A[t][s] = beta_t exp(lg_t - lg_s) k_t.k_s (s < t),  P[t][s] = exp(lg_t - lg_s) q_t.k_s (s <= t)
//   (I + A) W = diag(beta gamma) K,   (I + A) U = diag(beta) V      (forward substitution)
// and then, sequentially over the chunks of a sequence, with S = state^T [K, V] at chunk start:
//   delta = U - W S;  O = scale (diag(gamma) Q S + P delta);
//   S' = gamma_{L-1} S + (diag(exp(lg_{L-1} - lg_s)) K)^T delta
// Kernel 1 (prep) runs over all (chunk, v head) pairs at once and writes W, U, P, lg (fp32)
// to stream-ordered scratch. Estimates (H200): ~2-3 us a chunk step: 952 x 1: ~50-70 us
// (baseline 769); 6215 x 5: ~150-250 us (2439); 8192 x 1: ~350 us (5100). Batches of short
// sequences (mean length < 64 or T <= 128) take the recurrent lane8 kernel. Pass blocks are
// assigned to sequences longest first (one 214 KB block an SM: the longest must start first).
#include <cuda_bf16.h>
#include <kharness/kernel.h>
#include <stdint.h>

#include "gdn_gates.h"
#include "gdn_prefill_lane8.cuh"  // the lane8 kernel, for batches of short sequences

namespace {

using gdn_lane8::cp_async16;
using gdn_lane8::cp_async_commit;
using gdn_lane8::kDim;
using gdn_lane8::PrefillArgs;

// ---------------------------------------------------------------------------------------
// Chunked path.
constexpr int kC = 64;                                        // tokens a chunk
constexpr int kScratchW = 0;                                  // [64][128]
constexpr int kScratchU = kC * kDim;                          // [64][128]
constexpr int kScratchP = 2 * kC * kDim;                      // [64][64]
constexpr int kScratchLg = 2 * kC * kDim + kC * kC;           // [64]
constexpr int kScratchFloats = 2 * kC * kDim + kC * kC + kC;  // per (chunk, v head)
constexpr int kPad = kDim + 1;                                // 129: conflict-free column reads

constexpr int kPrepSmem = (kC * kC + 2 * kC * kPad + 2 * kC) * 4;  // 82944 bytes

__device__ __forceinline__ float2 load_bf16x2(const __nv_bfloat16* p) {
  return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(p));
}

// Global chunk idx -> (sequence, first token, length); chunks numbered sequence by sequence.
__device__ __forceinline__ bool find_chunk(const int64_t* cu, int num_seqs, int idx, int& seq, int64_t& tok0,
                                           int& len) {
  int acc = 0;
  for (int n = 0; n < num_seqs; ++n) {
    const int64_t s = cu[n], e = cu[n + 1];
    const int nc = static_cast<int>((e - s + kC - 1) / kC);
    if (idx < acc + nc) {
      seq = n;
      tok0 = s + static_cast<int64_t>(idx - acc) * kC;
      const int64_t rest = e - tok0;
      len = static_cast<int>(rest < kC ? rest : kC);
      return true;
    }
    acc += nc;
  }
  return false;
}

// grid (max chunks, 8 v heads), 256 threads.
__global__ void __launch_bounds__(256) gdn_chunk_prep_kernel(PrefillArgs p, int num_seqs, float* scratch) {
  int seq, L;
  int64_t tok0;
  if (!find_chunk(p.cu_seqlens, num_seqs, blockIdx.x, seq, tok0, L)) return;  // block-uniform
  extern __shared__ float4 smem4[];
  float* As = reinterpret_cast<float*>(smem4);  // [64][64]
  float* Ks = As + kC * kC;                     // [64][129]
  float* Qs = Ks + kC * kPad;                   // [64][129]
  float* lg = Qs + kC * kPad;                   // [64]
  float* bt = lg + kC;                          // [64]
  const int h = blockIdx.y;
  const int hq = h / GDN_V_PER_QK;
  const int tid = threadIdx.x;
  float* sc = scratch + (static_cast<int64_t>(blockIdx.x) * GDN_NUM_V_HEADS + h) * kScratchFloats;

  if (tid < kC) {
    float l = 0.f, be = 0.f;  // padded tokens: no decay, no write
    if (tid < L) {
      const int64_t vh = (tok0 + tid) * GDN_NUM_V_HEADS + h;
      l = -expf(p.A_log[h]) * gdn_softplus(__bfloat162float(p.a[vh]) + p.dt_bias[h]);
      be = gdn_beta(__bfloat162float(p.b[vh]));
    }
    lg[tid] = l;
    bt[tid] = be;
  }
  for (int idx = tid; idx < kC * (kDim / 2); idx += 256) {
    const int t = idx / (kDim / 2), d = 2 * (idx % (kDim / 2));
    float2 kk = make_float2(0.f, 0.f), qq = kk;
    if (t < L) {
      const int64_t off = ((tok0 + t) * GDN_NUM_QK_HEADS + hq) * kDim + d;
      kk = load_bf16x2(p.k + off);
      qq = load_bf16x2(p.q + off);
    }
    Ks[t * kPad + d] = kk.x;
    Ks[t * kPad + d + 1] = kk.y;
    Qs[t * kPad + d] = qq.x;
    Qs[t * kPad + d + 1] = qq.y;
  }
  __syncthreads();
  if (tid < 32) {  // inclusive prefix sum of the 64 log-decays
    float x0 = lg[tid], x1 = lg[tid + 32];
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const float y0 = __shfl_up_sync(0xffffffffu, x0, o);
      const float y1 = __shfl_up_sync(0xffffffffu, x1, o);
      if (tid >= o) {
        x0 += y0;
        x1 += y1;
      }
    }
    const float total0 = __shfl_sync(0xffffffffu, x0, 31);
    lg[tid] = x0;
    lg[tid + 32] = x1 + total0;
  }
  __syncthreads();

  // K K^T and Q K^T: thread (ti, si) owns rows ti + 16a, columns si + 16b.
  {
    const int ti = tid / 16, si = tid % 16;
    float kk[4][4], qk[4][4];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) kk[a][b] = qk[a][b] = 0.f;
#pragma unroll 4
    for (int d = 0; d < kDim; ++d) {
      float kt[4], qt[4], ks[4];
#pragma unroll
      for (int a = 0; a < 4; ++a) {
        kt[a] = Ks[(ti + 16 * a) * kPad + d];
        qt[a] = Qs[(ti + 16 * a) * kPad + d];
        ks[a] = Ks[(si + 16 * a) * kPad + d];
      }
#pragma unroll
      for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          kk[a][b] = fmaf(kt[a], ks[b], kk[a][b]);
          qk[a][b] = fmaf(qt[a], ks[b], qk[a][b]);
        }
    }
    float* P = sc + kScratchP;
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const int t = ti + 16 * a, s = si + 16 * b;
        const float decay = s <= t ? expf(lg[t] - lg[s]) : 0.f;  // exponent <= 0 only
        As[t * kC + s] = s < t ? bt[t] * decay * kk[a][b] : 0.f;
        P[t * kC + s] = s <= t ? decay * qk[a][b] : 0.f;
      }
  }
  if (tid < kC) sc[kScratchLg + tid] = lg[tid];
  __syncthreads();

  // Forward substitution, one column of [W | U] per thread, in registers.
  {
    const int c = tid;
    float X[kC];
#pragma unroll
    for (int t = 0; t < kC; ++t) {
      float r = 0.f;
      if (t < L) {
        if (c < kDim) {
          r = bt[t] * expf(lg[t]) * Ks[t * kPad + c];
        } else {
          r = bt[t] * __bfloat162float(p.v[((tok0 + t) * GDN_NUM_V_HEADS + h) * kDim + (c - kDim)]);
        }
      }
      X[t] = r;
    }
#pragma unroll
    for (int t = 1; t < kC; ++t) {
      float acc = X[t];
#pragma unroll
      for (int s4 = 0; s4 < t; s4 += 4) {
        const float4 a4 = *reinterpret_cast<const float4*>(As + t * kC + s4);
        acc = fmaf(-a4.x, X[s4], acc);
        if (s4 + 1 < t) acc = fmaf(-a4.y, X[s4 + 1], acc);
        if (s4 + 2 < t) acc = fmaf(-a4.z, X[s4 + 2], acc);
        if (s4 + 3 < t) acc = fmaf(-a4.w, X[s4 + 3], acc);
      }
      X[t] = acc;
    }
    float* dst = sc + (c < kDim ? kScratchW + c : kScratchU + (c - kDim));
#pragma unroll
    for (int t = 0; t < kC; ++t) dst[t * kDim] = X[t];
  }
}

// Pass: one block per (sequence, v head, VT V columns), 16 VT threads; sequential over the
// chunks. The raw inputs of chunk ci+1 (W, P, U tile, lg from the scratch; q, k bf16) are
// copied by cp.async into a staging area while chunk ci is computed, so that the ~1-2 us
// L2/HBM latency of a chunk's 90 KB is off the sequential path.
template <int VT>
struct PassLayout {
  static constexpr int kThreads = 16 * VT;         // rows 2rp, 2rp+1 (rp < 64) x VT/4 column quads
  static constexpr int kSs = 0;                    // [128 K][VT]
  static constexpr int kDs = kSs + kDim * VT;      // [64 t][VT]
  static constexpr int kKds = kDs + kC * VT;       // [64 s][128]
  static constexpr int kXs = kKds + kC * kDim;     // [128][129]
  static constexpr int kPs = kXs + 2 * kC * kPad;  // [64][65]
  static constexpr int kStW = (kPs + kC * (kC + 1) + 3) / 4 * 4;  // staging, 16-byte aligned: [64][128] f32
  static constexpr int kStP = kStW + kC * kDim;                   // [64][64] f32
  static constexpr int kStU = kStP + kC * kC;                     // [64][VT] f32
  static constexpr int kStLg = kStU + kC * VT;                    // [64] f32
  static constexpr int kStQ = kStLg + kC;                         // [64][128] bf16 (= 64 x 64 floats)
  static constexpr int kStK = kStQ + kC * kDim / 2;               // [64][128] bf16
  static constexpr int kFloats = kStK + kC * kDim / 2;
  static constexpr int kBytes = kFloats * 4;
  static_assert(kStW % 4 == 0 && kStP % 4 == 0 && kStU % 4 == 0 && kStLg % 4 == 0 && kStQ % 4 == 0 &&
                    kStK % 4 == 0 && kDs % 4 == 0 && kKds % 4 == 0,
                "16-byte alignment of the float4 / cp.async areas");
  static_assert(kBytes + 4 * 512 + 1024 <= 227 * 1024, "shared memory (with the static order array)");
};

template <int VT>
__device__ __forceinline__ void pass_stage(const PrefillArgs& p, const float* sc, int64_t tok0, int L, int hq,
                                           int vt0, float* sm) {
  using Lay = PassLayout<VT>;
  const int tid = threadIdx.x;
  for (int idx = tid; idx < kC * kDim / 4; idx += Lay::kThreads)  // W
    cp_async16(sm + Lay::kStW + 4 * idx, sc + kScratchW + 4 * idx);
  for (int idx = tid; idx < kC * kC / 4; idx += Lay::kThreads)  // P
    cp_async16(sm + Lay::kStP + 4 * idx, sc + kScratchP + 4 * idx);
  for (int idx = tid; idx < kC * VT / 4; idx += Lay::kThreads) {  // U tile
    const int t = idx / (VT / 4), c = 4 * (idx % (VT / 4));
    cp_async16(sm + Lay::kStU + t * VT + c, sc + kScratchU + t * kDim + vt0 + c);
  }
  if (tid < kC / 4) cp_async16(sm + Lay::kStLg + 4 * tid, sc + kScratchLg + 4 * tid);
  for (int idx = tid; idx < 2 * kC * (kDim / 8); idx += Lay::kThreads) {  // q, k: 16 pieces of 8 a row
    const int which = idx / (kC * (kDim / 8));
    const int t = (idx / (kDim / 8)) % kC;
    const int part = idx % (kDim / 8);
    if (t < L) {
      const __nv_bfloat16* src =
          (which == 0 ? p.q : p.k) + ((tok0 + t) * GDN_NUM_QK_HEADS + hq) * kDim + 8 * part;
      cp_async16(sm + (which == 0 ? Lay::kStQ : Lay::kStK) + t * (kDim / 2) + 4 * part, src);
    }
  }
}

constexpr int kMaxOrdered = 512;  // batches up to this size are ordered by length

template <int VT>
__global__ void __launch_bounds__(16 * VT, 1)
    gdn_chunk_pass_kernel(PrefillArgs p, int num_seqs, const float* scratch) {
  using Lay = PassLayout<VT>;
  constexpr int kT = kDim / VT;  // blocks a head
  extern __shared__ float4 smem4[];
  float* sm = reinterpret_cast<float*>(smem4);
  float* Ss = sm + Lay::kSs;
  float* Ds = sm + Lay::kDs;
  float* Kds = sm + Lay::kKds;
  float* Xs = sm + Lay::kXs;
  float* Ps = sm + Lay::kPs;
  const float* stW = sm + Lay::kStW;
  const float* stP = sm + Lay::kStP;
  const float* stU = sm + Lay::kStU;
  const float* stLg = sm + Lay::kStLg;
  const __nv_bfloat16* stQ = reinterpret_cast<const __nv_bfloat16*>(sm + Lay::kStQ);
  const __nv_bfloat16* stK = reinterpret_cast<const __nv_bfloat16*>(sm + Lay::kStK);

  const int tile = blockIdx.x % kT;
  const int rank = static_cast<int>(blockIdx.x / kT / GDN_NUM_V_HEADS);
  const int h = static_cast<int>(blockIdx.x / kT % GDN_NUM_V_HEADS);
  const int hq = h / GDN_V_PER_QK;
  const int vt0 = tile * VT;
  const int tid = threadIdx.x;
  // Blocks go to sequences longest first (ties: lower index first), so that with one block an
  // SM the longest sequences, which set the makespan, are not left to a later wave.
  __shared__ int order[kMaxOrdered];
  if (num_seqs <= kMaxOrdered) {
    for (int i = tid; i < num_seqs; i += Lay::kThreads) {
      const int64_t li = p.cu_seqlens[i + 1] - p.cu_seqlens[i];
      int r = 0;
      for (int j = 0; j < num_seqs; ++j) {
        const int64_t lj = p.cu_seqlens[j + 1] - p.cu_seqlens[j];
        r += (lj > li || (lj == li && j < i)) ? 1 : 0;
      }
      order[r] = i;
    }
  }
  __syncthreads();
  const int seq = num_seqs <= kMaxOrdered ? order[rank] : rank;
  const int64_t head = static_cast<int64_t>(seq) * GDN_NUM_V_HEADS + h;
  constexpr int kQuads = VT / 4;
  const int rp = tid / kQuads;  // rows 2rp, 2rp+1 (of X in step a, of S in step c)
  const int cq = tid % kQuads;  // columns 4cq .. 4cq+3 of the tile
  const int r0 = 2 * rp;
  const int64_t start = p.cu_seqlens[seq];
  const int64_t end = p.cu_seqlens[seq + 1];
  int base = 0;  // global index of this sequence's first chunk
  for (int n = 0; n < seq; ++n)
    base += static_cast<int>((p.cu_seqlens[n + 1] - p.cu_seqlens[n] + kC - 1) / kC);
  const float scale = gdn_effective_scale(p.scale);
  const int nchunks = static_cast<int>((end - start + kC - 1) / kC);
  auto chunk_scratch = [&](int ci) {
    return scratch + (static_cast<int64_t>(base + ci) * GDN_NUM_V_HEADS + h) * kScratchFloats;
  };
  auto chunk_len = [&](int ci) {
    const int64_t rest = end - (start + static_cast<int64_t>(ci) * kC);
    return static_cast<int>(rest < kC ? rest : kC);
  };
  if (nchunks > 0) pass_stage<VT>(p, chunk_scratch(0), start, chunk_len(0), hq, vt0, sm);
  cp_async_commit();

  // S[d][c] = state[seq, h, vt0 + c, d]; this thread's entries d = r0, r0+1, c = 4cq + j.
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    float2 s2 = make_float2(0.f, 0.f);  // an empty sequence leaves zeros
    if (end > start)
      s2 = *reinterpret_cast<const float2*>(p.state + (head * kDim + vt0 + 4 * cq + j) * kDim + r0);
    Ss[r0 * VT + 4 * cq + j] = s2.x;
    Ss[(r0 + 1) * VT + 4 * cq + j] = s2.y;
  }

  for (int ci = 0; ci < nchunks; ++ci) {
    const int64_t tok0 = start + static_cast<int64_t>(ci) * kC;
    const int L = chunk_len(ci);
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    __syncthreads();                 // staging holds chunk ci (everyone's copies); the previous chunk is done
    const float lgL = stLg[kC - 1];  // padded tokens carry lg_{L-1}
    for (int idx = tid; idx < kC * kDim; idx += Lay::kThreads) {
      const int t = idx / kDim, d = idx % kDim;
      Xs[t * kPad + d] = stW[idx];
    }
    for (int idx = tid; idx < kC * (kDim / 2); idx += Lay::kThreads) {
      const int t = idx / (kDim / 2), d = 2 * (idx % (kDim / 2));
      float2 qq = make_float2(0.f, 0.f), kk = qq;
      if (t < L) {
        qq = load_bf16x2(stQ + t * kDim + d);
        kk = load_bf16x2(stK + t * kDim + d);
      }
      const float gq = expf(stLg[t]), gk = expf(lgL - stLg[t]);
      Xs[(kC + t) * kPad + d] = gq * qq.x;
      Xs[(kC + t) * kPad + d + 1] = gq * qq.y;
      *reinterpret_cast<float2*>(Kds + t * kDim + d) = make_float2(gk * kk.x, gk * kk.y);
    }
    for (int idx = tid; idx < kC * kC; idx += Lay::kThreads) {
      const int t = idx / kC, s = idx % kC;
      Ps[t * (kC + 1) + s] = stP[idx];
    }
    for (int idx = tid; idx < kC * VT; idx += Lay::kThreads) Ds[idx] = stU[idx];
    __syncthreads();  // working copies ready; staging free
    if (ci + 1 < nchunks) pass_stage<VT>(p, chunk_scratch(ci + 1), tok0 + kC, chunk_len(ci + 1), hq, vt0, sm);
    cp_async_commit();

    // Step a: [W; gamma Q] S, rows r0, r0+1, columns 4cq..4cq+3.
    float acc[2][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = 0.f;
#pragma unroll 8
    for (int d = 0; d < kDim; ++d) {
      const float x0 = Xs[r0 * kPad + d], x1 = Xs[(r0 + 1) * kPad + d];
      const float4 s4 = *reinterpret_cast<const float4*>(Ss + d * VT + 4 * cq);
      acc[0][0] = fmaf(x0, s4.x, acc[0][0]);
      acc[0][1] = fmaf(x0, s4.y, acc[0][1]);
      acc[0][2] = fmaf(x0, s4.z, acc[0][2]);
      acc[0][3] = fmaf(x0, s4.w, acc[0][3]);
      acc[1][0] = fmaf(x1, s4.x, acc[1][0]);
      acc[1][1] = fmaf(x1, s4.y, acc[1][1]);
      acc[1][2] = fmaf(x1, s4.z, acc[1][2]);
      acc[1][3] = fmaf(x1, s4.w, acc[1][3]);
    }
    if (r0 < kC) {  // delta = U - W S
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) Ds[(r0 + i) * VT + 4 * cq + j] -= acc[i][j];
    }
    __syncthreads();  // delta complete; nobody reads S any more this chunk

    // Step b (second half of the threads): O = scale (gamma Q S + P delta), tokens r0-64, r0-63.
    if (r0 >= kC) {
      const int t0 = r0 - kC;
#pragma unroll 8
      for (int s = 0; s < kC; ++s) {
        const float p0 = Ps[t0 * (kC + 1) + s], p1 = Ps[(t0 + 1) * (kC + 1) + s];
        const float4 d4 = *reinterpret_cast<const float4*>(Ds + s * VT + 4 * cq);
        acc[0][0] = fmaf(p0, d4.x, acc[0][0]);
        acc[0][1] = fmaf(p0, d4.y, acc[0][1]);
        acc[0][2] = fmaf(p0, d4.z, acc[0][2]);
        acc[0][3] = fmaf(p0, d4.w, acc[0][3]);
        acc[1][0] = fmaf(p1, d4.x, acc[1][0]);
        acc[1][1] = fmaf(p1, d4.y, acc[1][1]);
        acc[1][2] = fmaf(p1, d4.z, acc[1][2]);
        acc[1][3] = fmaf(p1, d4.w, acc[1][3]);
      }
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int t = t0 + i;
        if (t < L) {
          const __nv_bfloat162 lo = __floats2bfloat162_rn(scale * acc[i][0], scale * acc[i][1]);
          const __nv_bfloat162 hi = __floats2bfloat162_rn(scale * acc[i][2], scale * acc[i][3]);
          uint2 packed;
          packed.x = *reinterpret_cast<const unsigned*>(&lo);
          packed.y = *reinterpret_cast<const unsigned*>(&hi);
          *reinterpret_cast<uint2*>(p.out + ((tok0 + t) * GDN_NUM_V_HEADS + h) * kDim + vt0 + 4 * cq) =
              packed;
        }
      }
    }

    // Step c (all threads): S' = gamma_{L-1} S + Kd^T delta on this thread's rows r0, r0+1.
    {
      const float gL = expf(lgL);
      float n0[4], n1[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        n0[j] = gL * Ss[r0 * VT + 4 * cq + j];
        n1[j] = gL * Ss[(r0 + 1) * VT + 4 * cq + j];
      }
#pragma unroll 8
      for (int s = 0; s < kC; ++s) {
        const float2 k2 = *reinterpret_cast<const float2*>(Kds + s * kDim + r0);
        const float4 d4 = *reinterpret_cast<const float4*>(Ds + s * VT + 4 * cq);
        n0[0] = fmaf(k2.x, d4.x, n0[0]);
        n0[1] = fmaf(k2.x, d4.y, n0[1]);
        n0[2] = fmaf(k2.x, d4.z, n0[2]);
        n0[3] = fmaf(k2.x, d4.w, n0[3]);
        n1[0] = fmaf(k2.y, d4.x, n1[0]);
        n1[1] = fmaf(k2.y, d4.y, n1[1]);
        n1[2] = fmaf(k2.y, d4.z, n1[2]);
        n1[3] = fmaf(k2.y, d4.w, n1[3]);
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        Ss[r0 * VT + 4 * cq + j] = n0[j];
        Ss[(r0 + 1) * VT + 4 * cq + j] = n1[j];
      }
    }
    // the barrier at the top of the next chunk orders these reads before the overwrites
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");

  // new_state[seq, h, vt0 + c, d] = S[d][c]: this thread's own entries.
#pragma unroll
  for (int j = 0; j < 4; ++j)
    *reinterpret_cast<float2*>(p.new_state + (head * kDim + vt0 + 4 * cq + j) * kDim + r0) =
        make_float2(Ss[r0 * VT + 4 * cq + j], Ss[(r0 + 1) * VT + 4 * cq + j]);
}

}  // namespace

void gdn_prefill_chunk64p(const DLTensor* q, const DLTensor* k, const DLTensor* v, const DLTensor* state,
                          const DLTensor* A_log, const DLTensor* a, const DLTensor* dt_bias,
                          const DLTensor* b, const DLTensor* cu_seqlens, float scale, DLTensor* output,
                          DLTensor* new_state, kh_stream_t stream) {
  const int64_t num_seqs = cu_seqlens->shape[0] - 1;
  if (num_seqs <= 0) return;
  const int64_t total = q->shape[0];
  const PrefillArgs args =
      gdn_lane8::prefill_args(q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, scale, output, new_state);
  // Short sequences on average: the recurrence pads nothing and needs no scratch.
  if (total <= 2 * kC || total < kC * num_seqs) {
    gdn_lane8::launch(args, num_seqs, stream);
    return;
  }
  static bool configured = false;
  if (!configured) {
    // Keep the pool's memory between calls so that the scratch is not re-mapped every call.
    int device = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      uint64_t threshold = UINT64_MAX;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
    }
    cudaFuncSetAttribute(gdn_chunk_prep_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kPrepSmem);
    cudaFuncSetAttribute(gdn_chunk_pass_kernel<8>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         PassLayout<8>::kBytes);
    cudaFuncSetAttribute(gdn_chunk_pass_kernel<16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         PassLayout<16>::kBytes);
    configured = true;
  }
  const int64_t max_chunks = (total + kC - 1) / kC + num_seqs;  // sum over sequences of ceil(len / 64)
  float* scratch = nullptr;
  const size_t bytes = static_cast<size_t>(max_chunks) * GDN_NUM_V_HEADS * kScratchFloats * sizeof(float);
  if (cudaMallocAsync(reinterpret_cast<void**>(&scratch), bytes, stream) != cudaSuccess) {
    (void)cudaGetLastError();
    gdn_lane8::launch(args, num_seqs, stream);
    return;
  }
  gdn_chunk_prep_kernel<<<dim3(static_cast<unsigned>(max_chunks), GDN_NUM_V_HEADS), 256, kPrepSmem, stream>>>(
      args, static_cast<int>(num_seqs), scratch);
  if (num_seqs == 1) {  // 16 blocks a head: the sequence fills 128 SMs (two would need two waves)
    gdn_chunk_pass_kernel<8><<<static_cast<unsigned>(num_seqs * GDN_NUM_V_HEADS * (kDim / 8)), 16 * 8,
                               PassLayout<8>::kBytes, stream>>>(args, static_cast<int>(num_seqs), scratch);
  } else {
    gdn_chunk_pass_kernel<16><<<static_cast<unsigned>(num_seqs * GDN_NUM_V_HEADS * (kDim / 16)), 16 * 16,
                                PassLayout<16>::kBytes, stream>>>(args, static_cast<int>(num_seqs), scratch);
  }
  cudaFreeAsync(scratch, stream);
}
