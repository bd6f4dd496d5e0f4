// The chunked pass's shared memory (gdn_chunk_pass.cuh): its shapes, the two stages a block
// double-buffers a sequence's chunks through, and how a chunk's operands get into a stage: copied
// from the preparation's scratch (cp.async), and for kExps the chunk's decay factors, evaluated once
// a block.
#pragma once

#include <type_traits>

#include "gdn_chunk_prep.cuh"

namespace gdn_chunk_tc {

template <int kWarps, int kSplit>
struct PassShape {
  static_assert(kSplit == 1 || kSplit == 2 || kSplit == 4, "the K columns split over 1, 2 or 4 warps");
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kVRows = 16 * kWarps / kSplit;  // V rows of a block
  static constexpr int kSlices = kDim / kVRows;        // blocks a (sequence, v head)
  static constexpr int kKTiles = 16 / kSplit;          // 8-wide K tiles of S^T a warp holds
  static constexpr int kKSteps = 8 / kSplit;           // 16-wide K steps a warp multiplies over
  static constexpr int kTRows = kC / kSplit;           // tokens whose output a warp writes
  static constexpr int kTPairs = 4 / kSplit;           // 16-token tile pairs of those
  // partial U (8 tiles), then partial O: the partner's 4 tiles (kSplit 2), 2 tiles of each part (kSplit 4)
  static constexpr int kSwapSlots = kSplit == 4 ? 16 : 12;
};

template <int kWarps, int kSplit>
struct __align__(16) PassStage {
  __half w[kC][kRow];
  __half q[kC][kRow];
  __half k[kC][kRow];
  __half p[kC][kRowC];
  __half u[PassShape<kWarps, kSplit>::kVRows][kRowC];  // U^ transposed, the block's V rows
  float lg[kC];
};

template <int kWarps, int kSplit>
struct __align__(16) PassSmem {
  using Shape = PassShape<kWarps, kSplit>;
  PassStage<kWarps, kSplit> stage[2];
  __nv_bfloat16 out[kWarps][Shape::kTRows][kOutRow];              // each warp's output tile, [t][its 16 v]
  float4 swap[kSplit > 1 ? kWarps * Shape::kSwapSlots * 32 : 1];  // [warp][slot][lane]
};

// The chunk's operands into one stage, by every thread of the block (cp.async, one group): the
// staging the loop promoted in chunk_tc and chunk_ksplit.
template <int kWarps, int kSplit>
__device__ __forceinline__ void pass_stage(PassStage<kWarps, kSplit>& st, const ChunkParts& src, int v0) {
  using Shape = PassShape<kWarps, kSplit>;
  constexpr int kParts = kDim / 8;  // 16-byte pieces of a 128-wide row
  for (int i = threadIdx.x; i < 3 * kC * kParts; i += Shape::kThreads) {
    const int which = i / (kC * kParts);
    const int row = (i / kParts) % kC;
    const int part = i % kParts;
    const __half* from = (which == 0 ? src.w : which == 1 ? src.q : src.k) + row * kDim + 8 * part;
    __half* to = (which == 0 ? &st.w[row][0] : which == 1 ? &st.q[row][0] : &st.k[row][0]) + 8 * part;
    cp_async16(to, from);
  }
  for (int i = threadIdx.x; i < kC * (kC / 8); i += Shape::kThreads)
    cp_async16(&st.p[i / 8][8 * (i % 8)], src.p + (i / 8) * kC + 8 * (i % 8));
  for (int i = threadIdx.x; i < Shape::kVRows * (kC / 8); i += Shape::kThreads)
    cp_async16(&st.u[i / 8][8 * (i % 8)], src.ut + (v0 + i / 8) * kC + 8 * (i % 8));
  if (threadIdx.x < kC / 4) cp_async16(&st.lg[4 * threadIdx.x], src.lg + 4 * threadIdx.x);
}

// pass_stage of the lean pass (kLean, ksplit_rows16): a thread copies the same pieces of every row step, so
// each copy's addresses are the thread's offset plus a compile-time one: an add a copy, where a division and
// selects a copy made the staging half of the pass's instructions (ncu, 8192 tokens).
template <int kWarps, int kSplit>
__device__ __forceinline__ void pass_stage_lean(PassStage<kWarps, kSplit>& st, const ChunkParts& src,
                                                int v0) {
  using Shape = PassShape<kWarps, kSplit>;
  constexpr int kWide = Shape::kThreads / (kDim / 8);  // 128-wide rows a step (16 pieces a row)
  constexpr int kNarrow = Shape::kThreads / (kC / 8);  // 64-wide rows a step (8 pieces a row)
  static_assert(kC % kWide == 0 && kC % kNarrow == 0 && Shape::kVRows % kNarrow == 0, "whole row steps");
  const int wr = threadIdx.x / (kDim / 8), wp = 8 * (threadIdx.x % (kDim / 8));
  const int nr = threadIdx.x / (kC / 8), np = 8 * (threadIdx.x % (kC / 8));
#pragma unroll
  for (int r = wr; r < kC; r += kWide) {
    cp_async16(&st.w[r][wp], src.w + r * kDim + wp);
    cp_async16(&st.q[r][wp], src.q + r * kDim + wp);
    cp_async16(&st.k[r][wp], src.k + r * kDim + wp);
  }
#pragma unroll
  for (int r = nr; r < kC; r += kNarrow) cp_async16(&st.p[r][np], src.p + r * kC + np);
#pragma unroll
  for (int r = nr; r < Shape::kVRows; r += kNarrow) cp_async16(&st.u[r][np], src.ut + (v0 + r) * kC + np);
  if (threadIdx.x < kC / 4) cp_async16(&st.lg[4 * threadIdx.x], src.lg + 4 * threadIdx.x);
}

// kLean: pass_stage_lean instead of pass_stage (ksplit_rows16, staged; chunk_tc and chunk_ksplit,
// promoted, keep the staging they were measured with).
template <int kWarps, int kSplit, bool kLean>
__device__ __forceinline__ void stage_chunk(PassStage<kWarps, kSplit>& st, const ChunkParts& src, int v0) {
  if constexpr (kLean) {
    pass_stage_lean(st, src, v0);
  } else {
    pass_stage(st, src, v0);
  }
}

// The chunk's decay factors exp(lg_t) and exp(lg_L - lg_t) evaluated once instead of by every warp, which
// otherwise takes 32 expf a lane a step (~8 instructions each, about a quarter of its step), though they
// depend on the chunk alone. Two ways (rows of ex: g[t] = exp(lg_t) at [t], d[t] = exp(lg_L - lg_t) at
// [kC + t]):
// - kExps (ksplit_exps24, rejected): once a block, a row a stage (ChunkDecays);
// - kPairExps (ksplit_pairexp24, rejected: no faster, the pass is latency-bound): once a pair of
//   warps at the start of its step, a row a pair (pair_decays).
template <int kWarps, int kSplit, int kRows>
struct __align__(16) PassSmemExps : PassSmem<kWarps, kSplit> {
  float ex[kRows][2 * kC];
};

template <int kWarps, int kSplit, bool kExps, bool kPairExps = false>
using PassSmemOf = std::conditional_t<
    kExps, PassSmemExps<kWarps, kSplit, 2>,
    std::conditional_t<kPairExps, PassSmemExps<kWarps, kSplit, kWarps / 2>, PassSmem<kWarps, kSplit>>>;

// kPairExps: lane l of the pair's warp `part` evaluates g and d of token 32 part + l from the staged log
// gates into the pair's row, at the start of the step; the pair's barrier in pass_swap makes them
// visible before pass_decays_of reads them, and the block's barrier between steps keeps the next step's
// writes after this step's reads. Unlike kExps, no global load stays in flight across the step (kExps
// loads the next chunk's gates before the step and stores their factors after it; its pass was 1.40x
// slower on one 8192-token sequence on an H100, with 30% fewer instructions a step).
__device__ __forceinline__ void pair_decays(const float* lg, float* ex, int i) {
  const float x = lg[i];
  ex[i] = expf(x);
  ex[kC + i] = expf(lg[kC - 1] - x);
}

// A thread's share of a chunk's 2 kC factors: its log gates loaded from the scratch when the chunk is
// staged, the factors evaluated and stored after the step before (the loads' latency hidden behind it,
// the stores made visible by the step's closing barrier). The same expf of the same floats as
// pass_decays: the same bits.
template <int kThreads>
struct ChunkDecays {
  static constexpr int kEach = (2 * kC + kThreads - 1) / kThreads;
  float lg[kEach];
  float lgL;

  __device__ __forceinline__ void load(const float* src) {
#pragma unroll
    for (int j = 0; j < kEach; ++j) {
      const int i = threadIdx.x + j * kThreads;
      if (i < 2 * kC) lg[j] = src[i % kC];
    }
    lgL = src[kC - 1];
  }

  __device__ __forceinline__ void store(float* ex) const {
#pragma unroll
    for (int j = 0; j < kEach; ++j) {
      const int i = threadIdx.x + j * kThreads;
      if (i < kC) {
        ex[i] = expf(lg[j]);
      } else if (i < 2 * kC) {
        ex[i] = expf(lgL - lg[j]);
      }
    }
  }
};

}  // namespace gdn_chunk_tc
