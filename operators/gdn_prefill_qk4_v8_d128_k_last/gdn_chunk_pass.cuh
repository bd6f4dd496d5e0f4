// The chunked (WY) gated delta rule's sequential pass and the host call, shared by
// loop/candidates/chunk_tc (kSplit 1) and chunk_ksplit (kSplit 2); their notes give the
// algorithm. One block per (sequence, v head, kVRows V rows), sequential over the sequence's
// chunks. A warp keeps S^T for 16 V rows and 128 / kSplit K columns in fp32 accumulators,
// which convert in place to the A operand of the next chunk's products. With kSplit 2 the
// two warps of a pair hold the two K halves of the same 16 rows: each multiplies over its
// half only (half the mma and ldmatrix of the sequential path), they add their partial
// U and O through shared memory under a barrier of the pair, and each writes the output of
// half the chunk's tokens and updates its own half of the state. The shapes below also serve
// the four-way pass of gdn_chunk_pass_group4.cuh (kSplit 4, tried and rejected).
// chunk_fragments.py (this folder) transcribes the warp-level indexing below (ldmatrix
// addresses, fragment layouts, the pair's sums) to numpy and checks it against plain products:
// change it with the formulas here.
#pragma once

#include "gdn_chunk_pass_smem.cuh"

namespace gdn_chunk_tc {

// A lane's place: its warp, the m16n8k16 fragment coordinates (g, tg), its ldmatrix row
// (matrix mi, row mr), the warp's first V row in the block and its K part.
struct WarpPos {
  int warp, lane, g, tg, mi, mr, vrow, part;
};

template <int kSplit>
__device__ __forceinline__ WarpPos warp_pos() {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  return WarpPos{warp, lane, lane >> 2, lane & 3, lane >> 3, lane & 7, 16 * (warp / kSplit), warp % kSplit};
}

// Partial U^T = [U^^T] - S^T W^T and O^T = S^T Q^T over the warp's K part, 16 V rows, 64
// tokens (U^ added by part 0 only).
template <int kWarps, int kSplit>
__device__ __forceinline__ void pass_products(const PassStage<kWarps, kSplit>& st, const WarpPos& w,
                                              const uint32_t (&sa)[8 / kSplit][4], float (&u)[8][4],
                                              float (&o)[8][4]) {
#pragma unroll
  for (int nt = 0; nt < 8; ++nt) {
    float2 lo = make_float2(0.f, 0.f), hi = lo;
    if (w.part == 0) {
      const int t = 8 * nt + 2 * w.tg;
      lo = __half22float2(*reinterpret_cast<const __half2*>(&st.u[w.vrow + w.g][t]));
      hi = __half22float2(*reinterpret_cast<const __half2*>(&st.u[w.vrow + w.g + 8][t]));
    }
    u[nt][0] = lo.x;
    u[nt][1] = lo.y;
    u[nt][2] = hi.x;
    u[nt][3] = hi.y;
    o[nt][0] = o[nt][1] = o[nt][2] = o[nt][3] = 0.f;
  }
  const int k0 = 16 * PassShape<kWarps, kSplit>::kKSteps * w.part;
  const __half* wb = &st.w[8 * (w.mi >> 1) + w.mr][8 * (w.mi & 1) + k0];
  const __half* qb = &st.q[8 * (w.mi >> 1) + w.mr][8 * (w.mi & 1) + k0];
#pragma unroll
  for (int ks = 0; ks < 8 / kSplit; ++ks) {
    const uint32_t neg[4] = {sa[ks][0] ^ 0x80008000u, sa[ks][1] ^ 0x80008000u, sa[ks][2] ^ 0x80008000u,
                             sa[ks][3] ^ 0x80008000u};
#pragma unroll
    for (int np = 0; np < 4; ++np) {  // n tiles 2np, 2np + 1: tokens 16np .. 16np + 15
      uint32_t bw[4], bq[4];
      ldsm_x4(bw, wb + 16 * np * kRow + 16 * ks);
      ldsm_x4(bq, qb + 16 * np * kRow + 16 * ks);
      mma_f16(u[2 * np], neg, bw[0], bw[1]);
      mma_f16(u[2 * np + 1], neg, bw[2], bw[3]);
      mma_f16(o[2 * np], sa[ks], bq[0], bq[1]);
      mma_f16(o[2 * np + 1], sa[ks], bq[2], bq[3]);
    }
  }
}

// kSplit 2: the pair adds its partial U (all tokens) and O (the tokens each writes). Both
// warps hold the same fragment positions, so lane l reads what its partner's lane l wrote.
template <int kWarps, int kSplit, int kPart>
__device__ __forceinline__ void pass_swap(PassSmem<kWarps, kSplit>& sm, const WarpPos& w, float (&u)[8][4],
                                          float (&o)[8][4]) {
  if constexpr (kSplit == 2) {
    constexpr int kSlots = PassShape<kWarps, kSplit>::kSwapSlots;
    float4* mine = &sm.swap[w.warp * kSlots * 32 + w.lane];
    const float4* theirs = &sm.swap[(w.warp ^ 1) * kSlots * 32 + w.lane];
    constexpr int their_half = 4 * (1 - kPart), my_half = 4 * kPart;  // first token tile of each
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) mine[nt * 32] = make_float4(u[nt][0], u[nt][1], u[nt][2], u[nt][3]);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float(&x)[4] = o[their_half + i];
      mine[(8 + i) * 32] = make_float4(x[0], x[1], x[2], x[3]);
    }
    asm volatile("bar.sync %0, 64;\n" ::"r"(1 + w.warp / 2) : "memory");  // the pair's barrier
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
      const float4 y = theirs[nt * 32];
      u[nt][0] += y.x;
      u[nt][1] += y.y;
      u[nt][2] += y.z;
      u[nt][3] += y.w;
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float4 y = theirs[(8 + i) * 32];
      float(&x)[4] = o[my_half + i];
      x[0] += y.x;
      x[1] += y.y;
      x[2] += y.z;
      x[3] += y.w;
    }
  }
}

// U^T's tile nt (tokens 8 nt ..) as fp16 A fragments, plain (ua, for P) and decayed to the chunk's end by
// d0, d1 (ud, for K): k step nt / 2, half nt % 2.
__device__ __forceinline__ void pack_u(const float (&u)[8][4], int nt, float d0, float d1,
                                       uint32_t (&ua)[4][4], uint32_t (&ud)[4][4]) {
  const int ks = nt >> 1, half = 2 * (nt & 1);
  ua[ks][half] = half2_bits(u[nt][0], u[nt][1]);
  ua[ks][half + 1] = half2_bits(u[nt][2], u[nt][3]);
  ud[ks][half] = half2_bits(u[nt][0] * d0, u[nt][1] * d1);
  ud[ks][half + 1] = half2_bits(u[nt][2] * d0, u[nt][3] * d1);
}

// O^T columns t scaled by exp(lg_t); U^T as fp16 A fragments, plain and decayed (pack_u).
template <int kWarps, int kSplit>
__device__ __forceinline__ void pass_decays(const PassStage<kWarps, kSplit>& st, const WarpPos& w,
                                            const float (&u)[8][4], float (&o)[8][4], uint32_t (&ua)[4][4],
                                            uint32_t (&ud)[4][4]) {
  const float lgL = st.lg[kC - 1];
#pragma unroll
  for (int nt = 0; nt < 8; ++nt) {
    const int t = 8 * nt + 2 * w.tg;
    const float g0 = expf(st.lg[t]), g1 = expf(st.lg[t + 1]);
    const float d0 = expf(lgL - st.lg[t]), d1 = expf(lgL - st.lg[t + 1]);
    o[nt][0] *= g0;
    o[nt][1] *= g1;
    o[nt][2] *= g0;
    o[nt][3] *= g1;
    pack_u(u, nt, d0, d1, ua, ud);
  }
}

// pass_decays with the factors evaluated once for the chunk (kExps, kPairExps): g[t] = exp(lg_t),
// d[t] = exp(lg_L - lg_t).
__device__ __forceinline__ void pass_decays_of(const float* g, const float* d, const WarpPos& w,
                                               const float (&u)[8][4], float (&o)[8][4], uint32_t (&ua)[4][4],
                                               uint32_t (&ud)[4][4]) {
#pragma unroll
  for (int nt = 0; nt < 8; ++nt) {
    const int t = 8 * nt + 2 * w.tg;
    const float2 gt = *reinterpret_cast<const float2*>(g + t), dt = *reinterpret_cast<const float2*>(d + t);
    o[nt][0] *= gt.x;
    o[nt][1] *= gt.y;
    o[nt][2] *= gt.x;
    o[nt][3] *= gt.y;
    pack_u(u, nt, dt.x, dt.y, ua, ud);
  }
}

// O^T += U^T P^T over the token tile pairs the warp writes (P[t][s] is zero for s > t: pairs
// wholly before the k step are skipped).
template <int kWarps, int kSplit, int kPart>
__device__ __forceinline__ void pass_intra(const PassStage<kWarps, kSplit>& st, const WarpPos& w,
                                           const uint32_t (&ua)[4][4], float (&o)[8][4]) {
  constexpr int kPairs = PassShape<kWarps, kSplit>::kTPairs;
  const __half* pb = &st.p[8 * (w.mi >> 1) + w.mr][8 * (w.mi & 1)];
#pragma unroll
  for (int ks = 0; ks < kC / 16; ++ks)
#pragma unroll
    for (int i = 0; i < kPairs; ++i) {
      const int np = kPairs * kPart + i;
      if (np < ks) continue;  // compile-time
      uint32_t bp[4];
      ldsm_x4(bp, pb + 16 * np * kRowC + 16 * ks);
      mma_f16(o[2 * np], ua[ks], bp[0], bp[1]);
      mma_f16(o[2 * np + 1], ua[ks], bp[2], bp[3]);
    }
}

// The warp's K part of S^T = gL S^T + (decayed U^T) K, gL = exp(lg_L).
template <int kWarps, int kSplit>
__device__ __forceinline__ void pass_state_by(float gL, const PassStage<kWarps, kSplit>& st, const WarpPos& w,
                                              const uint32_t (&ud)[4][4], float (&s)[16 / kSplit][4]) {
  constexpr int kTiles = PassShape<kWarps, kSplit>::kKTiles;
#pragma unroll
  for (int nt = 0; nt < kTiles; ++nt)
#pragma unroll
    for (int e = 0; e < 4; ++e) s[nt][e] *= gL;
  // .trans: rows are tokens (the k steps), columns the warp's K part
  const __half* kb = &st.k[w.mr + 8 * (w.mi & 1)][8 * (w.mi >> 1) + 8 * kTiles * w.part];
#pragma unroll
  for (int ks = 0; ks < kC / 16; ++ks)
#pragma unroll
    for (int np = 0; np < kTiles / 2; ++np) {  // n tiles 2np, 2np + 1: 16 K columns
      uint32_t bk[4];
      ldsm_x4_trans(bk, kb + 16 * ks * kRow + 16 * np);
      mma_f16(s[2 * np], ud[ks], bk[0], bk[1]);
      mma_f16(s[2 * np + 1], ud[ks], bk[2], bk[3]);
    }
}

template <int kWarps, int kSplit>
__device__ __forceinline__ void pass_state(const PassStage<kWarps, kSplit>& st, const WarpPos& w,
                                           const uint32_t (&ud)[4][4], float (&s)[16 / kSplit][4]) {
  pass_state_by(expf(st.lg[kC - 1]), st, w, ud, s);
}

// scale O^T to bf16 through the warp's shared tile, then the rows t < L of the warp's tokens
// to the output.
template <int kSplit, int kPart>
__device__ __forceinline__ void pass_store_output(const PrefillArgs& p, __nv_bfloat16 (*tile)[kOutRow],
                                                  const WarpPos& w, const float (&o)[8][4], float scale,
                                                  int64_t tok0, int L, int h, int vw) {
  constexpr int kTRows = kC / kSplit;
  constexpr int t0 = kTRows * kPart;  // the warp's first token
#pragma unroll
  for (int i = 0; i < 8 / kSplit; ++i) {
    const int nt = (8 / kSplit) * kPart + i;
    const int t = 8 * i + 2 * w.tg;  // in the tile
    tile[t][w.g] = __float2bfloat16(scale * o[nt][0]);
    tile[t + 1][w.g] = __float2bfloat16(scale * o[nt][1]);
    tile[t][w.g + 8] = __float2bfloat16(scale * o[nt][2]);
    tile[t + 1][w.g + 8] = __float2bfloat16(scale * o[nt][3]);
  }
  __syncwarp();
#pragma unroll
  for (int i = 0; i < kTRows / 16; ++i) {
    const int t = 16 * i + w.lane / 2, part = w.lane & 1;
    if (t0 + t < L)
      *reinterpret_cast<uint4*>(p.out + ((tok0 + t0 + t) * GDN_NUM_V_HEADS + h) * kDim + vw + 8 * part) =
          *reinterpret_cast<const uint4*>(&tile[t][8 * part]);
  }
}

// S^T of the warp to or from the k-last state: rows vw + g (e 0, 1) and vw + g + 8 (e 2, 3),
// K columns k0 + 8nt + 2tg (+1).
template <int kTiles>
__device__ __forceinline__ void load_state(const float* state, int64_t row, int k0, const WarpPos& w,
                                           bool empty, float (&s)[kTiles][4]) {
  const float* lo_row = state + (row + w.g) * kDim + k0 + 2 * w.tg;
  const float* hi_row = lo_row + 8 * kDim;
#pragma unroll
  for (int nt = 0; nt < kTiles; ++nt) {
    float2 lo = make_float2(0.f, 0.f), hi = lo;  // zeros for an empty sequence
    if (!empty) {
      lo = *reinterpret_cast<const float2*>(lo_row + 8 * nt);
      hi = *reinterpret_cast<const float2*>(hi_row + 8 * nt);
    }
    s[nt][0] = lo.x;
    s[nt][1] = lo.y;
    s[nt][2] = hi.x;
    s[nt][3] = hi.y;
  }
}

template <int kTiles>
__device__ __forceinline__ void store_state(float* state, int64_t row, int k0, const WarpPos& w,
                                            const float (&s)[kTiles][4]) {
  float* lo_row = state + (row + w.g) * kDim + k0 + 2 * w.tg;
  float* hi_row = lo_row + 8 * kDim;
#pragma unroll
  for (int nt = 0; nt < kTiles; ++nt) {
    *reinterpret_cast<float2*>(lo_row + 8 * nt) = make_float2(s[nt][0], s[nt][1]);
    *reinterpret_cast<float2*>(hi_row + 8 * nt) = make_float2(s[nt][2], s[nt][3]);
  }
}

// One chunk of a warp whose K part is kPart (a template parameter, so that every register
// array is indexed at compile time). kExps: the decay factors read from ex (g at [t], d at [kC + t]).
template <int kWarps, int kSplit, int kPart, bool kExps = false>
__device__ __forceinline__ void chunk_step(const PrefillArgs& p, PassSmem<kWarps, kSplit>& sm,
                                           const PassStage<kWarps, kSplit>& st, const WarpPos& w,
                                           float (&s)[16 / kSplit][4], float scale, int64_t tok0, int L,
                                           int h, int vw, const float* ex = nullptr) {
  constexpr int kKSteps = PassShape<kWarps, kSplit>::kKSteps;
  uint32_t sa[kKSteps][4];  // S^T as fp16 A fragments: k step ks = K tiles 2ks, 2ks + 1
#pragma unroll
  for (int ks = 0; ks < kKSteps; ++ks) {
    sa[ks][0] = half2_bits(s[2 * ks][0], s[2 * ks][1]);
    sa[ks][1] = half2_bits(s[2 * ks][2], s[2 * ks][3]);
    sa[ks][2] = half2_bits(s[2 * ks + 1][0], s[2 * ks + 1][1]);
    sa[ks][3] = half2_bits(s[2 * ks + 1][2], s[2 * ks + 1][3]);
  }
  float u[8][4], o[8][4];
  uint32_t ua[4][4], ud[4][4];
  pass_products(st, w, sa, u, o);
  pass_swap<kWarps, kSplit, kPart>(sm, w, u, o);
  if constexpr (kExps) {
    pass_decays_of(ex, ex + kC, w, u, o, ua, ud);
  } else {
    pass_decays(st, w, u, o, ua, ud);
  }
  pass_intra<kWarps, kSplit, kPart>(st, w, ua, o);
  if constexpr (kExps) {
    pass_state_by(ex[kC - 1], st, w, ud, s);
  } else {
    pass_state(st, w, ud, s);
  }
  pass_store_output<kSplit, kPart>(p, sm.out[w.warp], w, o, scale, tok0, L, h, vw);
}

// Where a pass block and its warp work: the (sequence, v head), the block's first V row and the warp's,
// the warp's first K column, the sequence's tokens and chunks (base: the global index of its first).
struct PassBlock {
  int64_t head;
  int seq, h, v0, vw, k0;
  int64_t start, end;
  int nchunks, base;
  float scale;
};

template <int kWarps, int kSplit>
__device__ __forceinline__ PassBlock pass_block(const PrefillArgs& p, const WarpPos& w) {
  using Shape = PassShape<kWarps, kSplit>;
  PassBlock b;
  b.head = blockIdx.x / Shape::kSlices;  // sequence * 8 + v head
  b.seq = static_cast<int>(b.head / GDN_NUM_V_HEADS);
  b.h = static_cast<int>(b.head % GDN_NUM_V_HEADS);
  b.v0 = static_cast<int>(blockIdx.x % Shape::kSlices) * Shape::kVRows;
  b.vw = b.v0 + w.vrow;
  b.k0 = 8 * Shape::kKTiles * w.part;
  b.start = p.cu_seqlens[b.seq];
  b.end = p.cu_seqlens[b.seq + 1];
  b.nchunks = chunks_of(p.cu_seqlens, b.seq);
  b.base = chunks_before(p.cu_seqlens, b.seq);
  b.scale = gdn_effective_scale(p.scale);
  return b;
}

// The warp's step with its K part as a template argument.
template <int kWarps, int kSplit, bool kExps>
__device__ __forceinline__ void chunk_step_of_part(const PrefillArgs& p, PassSmem<kWarps, kSplit>& sm,
                                                   const PassStage<kWarps, kSplit>& st, const WarpPos& w,
                                                   float (&s)[16 / kSplit][4], float scale, int64_t tok0,
                                                   int L, int h, int vw, const float* ex) {
  if constexpr (kSplit == 1) {
    chunk_step<kWarps, kSplit, 0, kExps>(p, sm, st, w, s, scale, tok0, L, h, vw, ex);
  } else if (w.part == 0) {
    chunk_step<kWarps, kSplit, 0, kExps>(p, sm, st, w, s, scale, tok0, L, h, vw, ex);
  } else {
    chunk_step<kWarps, kSplit, 1, kExps>(p, sm, st, w, s, scale, tok0, L, h, vw, ex);
  }
}

// kPdl (ksplit_tinv24_pdl): launched as the preparation's programmatic dependent, the block reads its
// boundaries and initial state (inputs only) while the preparation finishes, then waits for the
// preparation's completion and the visibility of its scratch before the first copy from it; every
// global write (output, new_state) comes after that wait too.
// kExps, kPairExps: the decay factors evaluated once a block or once a pair (gdn_chunk_pass_smem.cuh).
template <int kWarps, int kSplit, bool kLean, bool kPdl = false, bool kExps = false, bool kPairExps = false>
__global__ void __launch_bounds__(32 * kWarps, 1)
    chunk_pass_kernel(PrefillArgs p, int num_seqs, char* scratch) {
  static_assert(kSplit != 4, "the four-way pass is gdn_chunk_pass_group4.cuh's");
  static_assert(!kPairExps || (kSplit == 2 && !kExps), "kPairExps: a pair's 64 lanes, its barrier");
  using Shape = PassShape<kWarps, kSplit>;
  using Smem = PassSmemOf<kWarps, kSplit, kExps, kPairExps>;
  extern __shared__ float4 pass_smem[];
  Smem& sm = *reinterpret_cast<Smem*>(pass_smem);
  const WarpPos w = warp_pos<kSplit>();
  const PassBlock b = pass_block<kWarps, kSplit>(p, w);
  const int64_t head = b.head, start = b.start, end = b.end;
  const int h = b.h, v0 = b.v0, vw = b.vw, k0 = b.k0, nchunks = b.nchunks, base = b.base;
  const float scale = b.scale;

  float s[Shape::kKTiles][4];
  load_state(p.state, head * kDim + vw, k0, w, nchunks == 0, s);
  if constexpr (kPdl) asm volatile("griddepcontrol.wait;\n" ::: "memory");

  [[maybe_unused]] ChunkDecays<Shape::kThreads> decays;
  if (nchunks > 0) stage_chunk<kWarps, kSplit, kLean>(sm.stage[0], chunk_parts(scratch, base, h), v0);
  if constexpr (kExps) {
    if (nchunks > 0) {
      decays.load(chunk_parts(scratch, base, h).lg);
      decays.store(sm.ex[0]);  // visible after the first step's opening barrier
    }
  }
  cp_async_commit();
  for (int ci = 0; ci < nchunks; ++ci) {
    if (ci + 1 < nchunks) {
      stage_chunk<kWarps, kSplit, kLean>(sm.stage[(ci + 1) & 1], chunk_parts(scratch, base + ci + 1, h), v0);
      if constexpr (kExps) decays.load(chunk_parts(scratch, base + ci + 1, h).lg);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();  // chunk ci's operands are in every thread's view
    const PassStage<kWarps, kSplit>& st = sm.stage[ci & 1];
    const int64_t tok0 = start + static_cast<int64_t>(ci) * kC;
    const int L = static_cast<int>(end - tok0 < kC ? end - tok0 : kC);
    const float* ex = nullptr;
    if constexpr (kExps) ex = sm.ex[ci & 1];
    if constexpr (kPairExps) {
      pair_decays(st.lg, sm.ex[w.warp / 2], 32 * w.part + w.lane);
      ex = sm.ex[w.warp / 2];
    }
    chunk_step_of_part<kWarps, kSplit, kExps || kPairExps>(p, sm, st, w, s, scale, tok0, L, h, vw, ex);
    // chunk ci + 1's factors: their stage was last read by step ci - 1, before the barrier that began step ci
    if constexpr (kExps) {
      if (ci + 1 < nchunks) decays.store(sm.ex[(ci + 1) & 1]);
    }
    __syncthreads();  // the stage is free for chunk ci + 2's copies; the output tiles and swap too
  }
  store_state(p.new_state, head * kDim + vw, k0, w, s);
}

struct LaunchConfig {
  bool ready = false;
  int sms = 132;
};

// Once per process: the SM count, and a memory pool that keeps its memory between calls (so the
// scratch is not re-mapped on every call). Each launcher raises its own kernel's shared-memory
// limit (allow_smem), so only the kernels a call runs are touched.
inline const LaunchConfig& launch_config() {
  static LaunchConfig config;
  if (!config.ready) {
    int device = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&device) == cudaSuccess) {
      cudaDeviceGetAttribute(&config.sms, cudaDevAttrMultiProcessorCount, device);
      if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
        uint64_t threshold = UINT64_MAX;
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
      }
    }
    config.ready = true;
  }
  return config;
}

// A pass kernel launched as the programmatic dependent of the kernel before it in the stream (the
// preparation), falling back to an ordinary launch when the attribute is refused (the kernel's
// griddepcontrol.wait is then a no-op).
template <class Kernel>
void launch_pass_dependent(Kernel kernel, unsigned blocks, unsigned threads, size_t smem,
                           const PrefillArgs& args, int64_t num_seqs, char* scratch, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  if (cudaLaunchKernelEx(&config, kernel, args, static_cast<int>(num_seqs), scratch) == cudaSuccess) return;
  (void)cudaGetLastError();  // clear the refusal; the ordinary launch below is still ordered
  kernel<<<blocks, threads, smem, stream>>>(args, static_cast<int>(num_seqs), scratch);
}

// kPdl: launched as the preparation's programmatic dependent (launch_pass_dependent).
template <int kWarps, int kSplit, bool kLean, bool kPdl = false, bool kExps = false, bool kPairExps = false>
void launch_pass(const PrefillArgs& args, int64_t num_seqs, char* scratch, cudaStream_t stream) {
  using Shape = PassShape<kWarps, kSplit>;
  constexpr auto kernel = chunk_pass_kernel<kWarps, kSplit, kLean, kPdl, kExps, kPairExps>;
  constexpr size_t smem = sizeof(PassSmemOf<kWarps, kSplit, kExps, kPairExps>);
  static const bool allowed = allow_smem(kernel, smem);
  (void)allowed;
  const unsigned blocks = static_cast<unsigned>(num_seqs * GDN_NUM_V_HEADS * Shape::kSlices);
  if constexpr (kPdl) {
    launch_pass_dependent(kernel, blocks, Shape::kThreads, smem, args, num_seqs, scratch, stream);
    return;
  }
  kernel<<<blocks, Shape::kThreads, smem, stream>>>(args, static_cast<int>(num_seqs), scratch);
}

// 32 V rows a block while one wave of blocks covers the SMs, 64 beyond that (as promoted). The
// lean pass (kLean) also takes 16 V rows a block while one wave still covers the SMs: a long
// sequence alone is a chain of chunks, and more blocks are more SMs issuing its mma.
template <int kSplit, bool kLean = false, bool kPdl = false, bool kExps = false, bool kPairExps = false>
void launch_pass_for(const PrefillArgs& args, int64_t num_seqs, char* scratch, cudaStream_t stream) {
  const int64_t heads = num_seqs * GDN_NUM_V_HEADS;
  const int sms = launch_config().sms;
  if constexpr (kLean) {
    if (heads * (kDim / 16) <= sms)
      return launch_pass<kSplit, kSplit, kLean, kPdl, kExps, kPairExps>(args, num_seqs, scratch, stream);
  }
  if (heads * (kDim / 32) <= sms) {
    launch_pass<2 * kSplit, kSplit, kLean, kPdl, kExps, kPairExps>(args, num_seqs, scratch, stream);
  } else {
    launch_pass<4 * kSplit, kSplit, kLean, kPdl, kExps, kPairExps>(args, num_seqs, scratch, stream);
  }
}

// The whole call: lane8 where every sequence is surely short (mean length under 8 tokens, or
// at most 32 tokens in all), else prep over every (chunk, v head), then the pass. Why not
// lane8 up to a mean of 64 (chunk64's rule): lengths are skewed (log-normal shares), and the
// host cannot see cu_seqlens without a sync, so a batch of mean 45 can hold a 900-token
// sequence: lane8 took 226 us on 2548 tokens over 40 sequences, 185 us on 2069 over 46, 25 us
// on one sequence of 90 (~0.25-0.28 us a token of the longest), where the chunked path is
// estimated at ~8-10 us fixed (two launches, one wave of each) plus ~1 us a chunk.
// kPrep launches the preparation (launch_prep, or launch_prep_tinv of gdn_chunk_prep_tinv.cuh);
// kLean picks the lean pass (launch_pass_for); kLaneMean and kLaneTotal move the hand-over to
// lane8 (on the H200 the chunked path's fixed cost made 24 and 128 the better rule over the
// contest's workloads: loop/dispatch_threshold.py). kPdl launches the pass as the preparation's
// programmatic dependent (its launch and prologue overlap the preparation's tail); it pays only with a
// preparation that triggers early (launch_prep_tinv_pdl), and is correct with any.
// `pass`, when given, launches the pass instead of launch_pass_for (a candidate's own pass).
using PrepLauncher = void (*)(const PrefillArgs&, int64_t, int64_t, char*, cudaStream_t);
using PassLauncher = void (*)(const PrefillArgs&, int64_t, char*, cudaStream_t);

template <int kSplit, PrepLauncher kPrep = launch_prep, bool kLean = false, int kLaneMean = 8,
          int kLaneTotal = 32, bool kPdl = false>
void run(const PrefillArgs& args, int64_t num_seqs, int64_t total, cudaStream_t stream,
         PassLauncher pass = nullptr) {
  if (num_seqs <= 0) return;
  if (total < kLaneMean * num_seqs || total <= kLaneTotal) {
    gdn_lane8::launch(args, num_seqs, stream);
    return;
  }
  launch_config();  // the memory pool, before the first allocation
  const int64_t chunks = max_chunks(total, num_seqs);
  char* scratch = nullptr;
  if (cudaMallocAsync(reinterpret_cast<void**>(&scratch), static_cast<size_t>(chunks * kChunkBytes),
                      stream) != cudaSuccess) {
    (void)cudaGetLastError();
    gdn_lane8::launch(args, num_seqs, stream);
    return;
  }
  kPrep(args, num_seqs, chunks, scratch, stream);
  if (pass != nullptr) {
    pass(args, num_seqs, scratch, stream);
  } else {
    launch_pass_for<kSplit, kLean, kPdl>(args, num_seqs, scratch, stream);
  }
  cudaFreeAsync(scratch, stream);
}

}  // namespace gdn_chunk_tc
