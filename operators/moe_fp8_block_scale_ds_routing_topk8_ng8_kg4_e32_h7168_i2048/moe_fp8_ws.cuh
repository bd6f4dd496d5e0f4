// The warp-specialised fp8 grouped GEMM of the loop's fp8ws candidate (large calls): the tensor
// memory accelerator (TMA) streams 128 x 128-byte operand tiles into a ring of shared-memory stages
// that one producer thread keeps full, and two consumer warpgroups run only wgmma and the block-scale
// fold, each at its own pace (mbarriers between them, no __syncthreads in the k loop).
//
// Why: fp8wg's wgmma kernels issue their own operand loads (2048 cp.async of 16 bytes a 128-deep
// stage, with their address arithmetic, from the same 256 threads that run the MMAs) and keep both
// warpgroups in lockstep behind a __syncthreads a stage, so the tensor cores idle while the
// warps issue loads and fold. TMA takes one instruction a tile; the consumers' folds overlap the
// other warpgroup's MMAs. TMA cannot gather rows, so GEMM1's activation rows are first copied into
// expert order (gather_rows: ~2 x 190 MB at 14107 tokens, a few percent of the call).
#pragma once

#include "moe_fp8_grouped.cuh"
#include "moe_tma.cuh"

namespace moe_fp8_grouped::ws {

constexpr int kBM = 128;                     // rows a block: two consumer warpgroups of 64
constexpr int kStages = 6;                   // 32 KB each
constexpr int kThreads = 384;                // producer warpgroup + two consumer warpgroups
constexpr int kTileBytes = kBM * 128;        // one 128-row x 128-byte operand tile
constexpr int kStageBytes = 2 * kTileBytes;  // A tile then B tile
constexpr int kConsumerWarps = 8;            // arrivals that free a stage
constexpr int kSmem = kStages * kStageBytes + 2 * kStages * 8 + 1024;  // + mbarriers + alignment
// kTmaScales: each stage also receives its k block's block scales by TMA, into a ring of slots after
// the operand stages. Every box starts 16-byte aligned in global memory, so each starts up to 3 floats
// before what it is for: the activation scales of the tile's rows (GEMM1: 132 floats from row0 & ~3;
// GEMM2: [128 rows][4] from column 2kb & ~3), then the 16 bytes around the k block's scale in each
// weight scale row (GEMM1: X1's, then X2's 128 bytes further: a TMA tensor copy lands 128-byte aligned).
constexpr int kScaleW = 2048;  // offset of the weight scales in a slot
constexpr int kScaleSlot = kScaleW + 256;
constexpr int kSmemTmaScales = kSmem + kStages * kScaleSlot;

template <bool kGemm1>
struct Shape {
  static constexpr int K = kGemm1 ? kH : kI, KT = K / kStepK;
  static constexpr int kScaleBytes = kGemm1 ? 132 * 4 + 2 * 16 : 128 * 16 + 16;  // a stage's TMA'd scales
  static constexpr int kNOut = kGemm1 ? kI : kH;
  static constexpr int kHalves = kGemm1 ? 2 : 1;  // GEMM1: matching X1 and X2 columns
  static constexpr int BN = kGemm1 ? 64 : 128;    // output columns a block (a half)
  static constexpr int kFolds = kGemm1 ? 1 : 2;   // activation scales per 128 k
};
// One m64n128k32 wgmma a k32 step in both GEMMs: GEMM1's B tile is 64 X1 rows then the 64 matching
// X2 rows, so a thread's 64 accumulators hold X1 in [0, 32) and X2 in [32, 64). (Two m64n64k32, as
// fp8wg issues, read the A tile twice: 4 KB of shared memory per 32 tensor-core clocks, the whole
// 128 bytes a clock that shared memory gives.)
constexpr int kAcc = 64;

struct Args {
  const float* a_scale;  // GEMM1: hidden_states_scale [H/128, T]; GEMM2: act_scale [rows, I/64]
  const float* w_scale;  // [E, kHalves * n_out / 128, K / 128]
  const int* offsets;
  const int2* tiles;
  const int* num_tiles;
  const int* row_token;
  const float* row_weight;
  int tokens;
  uint8_t* act;      // GEMM1's output codes [rows, I]
  float* act_scale;  // and scales [rows, I / 64]
  float* sum;        // GEMM2's fp32 [T, H], accumulated
};

// One block's share of a GEMM: output tiles ("items", column tile fastest unless kByColumn) first,
// first + stride, ... below total. A persistent block takes every gridDim.x-th item; otherwise a
// block takes one.
struct Items {
  int first, stride, total;
};

// The tensor maps of the block scales (kTmaScales): the activation scales (GEMM1: gathered into expert
// order, [K / 128][rows]; GEMM2: [rows][I / 64]) and the weight scales ([experts * block rows][K / 128]).
struct ScaleMaps {
  const CUtensorMap* a;
  const CUtensorMap* w;
};

// Where item i's rows and columns are: expert e, its first row in expert order, the rows it has
// (<= kBM), its first output column (per half).
struct Item {
  int e, row0, rows_here, n0;
};

//
// kByColumn: within an expert, the row tile fastest. An expert's items still span its row tiles'
// range (items [first * kTilesX, (first + count) * kTilesX) for its row tiles first..first+count-1),
// only their order inside it changes, so the blocks walking neighbouring items at once share one
// weight column tile (read from DRAM once, the others hitting L2) and re-read the expert's few MB
// of activation rows from L2. Column tile fastest, they share a row tile instead and the expert's
// whole weights (GEMM1: 29 MB) stream again for each group of row tiles in flight.
template <bool kGemm1, bool kByColumn = false>
__device__ __forceinline__ Item item_at(const Args& p, int i) {
  constexpr int kTilesX = Shape<kGemm1>::kNOut / Shape<kGemm1>::BN;
  int2 tile = p.tiles[i / kTilesX];
  int column = i % kTilesX;
  if constexpr (kByColumn) {
    const int first = i / kTilesX - tile.y / kBM;  // the expert's first row tile (plan_tiles' layout)
    const int rows = p.offsets[tile.x + 1] - p.offsets[tile.x];
    const int count = min((rows + kBM - 1) / kBM, *p.num_tiles - first);
    const int j = i - first * kTilesX;  // the item's place among its expert's
    tile.y = (j % count) * kBM;
    column = j / count;
  }
  Item w;
  w.e = tile.x;
  w.row0 = p.offsets[tile.x] + tile.y;
  w.rows_here = min(kBM, p.offsets[tile.x + 1] - w.row0);
  w.n0 = column * Shape<kGemm1>::BN;
  return w;
}

// The producer thread: every k block of every item of this block, through the ring of stages
// (use u of stage s waits for the consumers' release of use u - 1).
// kPair: the block is one of a cluster of two on neighbouring column tiles of one row tile; each
// block's producer loads half of the shared A tile (64 rows) into both blocks, so a stage takes
// 24 KB from L2 a block instead of 32 KB. A stage is reused only when both blocks' consumers have
// released it (empty counts the pair's consumer warps).
template <bool kGemm1, bool kPair, bool kTmaScales = false, bool kByColumn = false>
__device__ void produce(const CUtensorMap* map_a, const CUtensorMap* map_w, const Args& p, uint8_t* smem,
                        uint64_t* full, uint64_t* empty, Items items, ScaleMaps scales = {}) {
  const uint32_t rank = kPair ? cluster_rank() : 0;
  using S = Shape<kGemm1>;
  uint32_t it = 0;  // k blocks issued so far
  for (int i = items.first; i < items.total; i += items.stride) {
    const Item w = item_at<kGemm1, kByColumn>(p, i);
    const int w_row = w.e * S::kHalves * S::kNOut + w.n0;
    for (int kb = 0; kb < S::KT; ++kb, ++it) {
      const uint32_t s = it % kStages;
      if (it >= kStages) mbar_wait(&empty[s], ((it / kStages) - 1) & 1);
      uint8_t* stage = smem + s * kStageBytes;
      mbar_expect_tx(&full[s], kTmaScales ? kStageBytes + S::kScaleBytes : kStageBytes);
      if constexpr (kPair)
        tma_load_multicast(stage + rank * 64 * 128, map_a, kb * kStepK, w.row0 + 64 * static_cast<int>(rank),
                           &full[s], 0x3);
      else
        tma_load(stage, map_a, kb * kStepK, w.row0, &full[s]);
      tma_load(stage + kTileBytes, map_w, kb * kStepK, w_row, &full[s]);
      if constexpr (kGemm1) tma_load(stage + kTileBytes + 64 * 128, map_w, kb * kStepK, w_row + kI, &full[s]);
      if constexpr (kTmaScales) {
        uint8_t* slot = smem + kStages * kStageBytes + s * kScaleSlot;
        if constexpr (kGemm1)
          tma_load(slot, scales.a, w.row0 & ~3, kb, &full[s]);  // box: 132 rows of one k block
        else
          tma_load(slot, scales.a, (2 * kb) & ~3, w.row0, &full[s]);  // box: 4 scales of 128 rows
        const int scale_row = w_row / kBlock;                         // X1's (GEMM1), the tile's (GEMM2)
        tma_load(slot + kScaleW, scales.w, kb & ~3, scale_row, &full[s]);
        if constexpr (kGemm1)
          tma_load(slot + kScaleW + 128, scales.w, kb & ~3, scale_row + kI / kBlock, &full[s]);
      }
    }
  }
}

// GEMM1's epilogue: C = silu(X2) * X1 on this thread's rows r0 and r0 + 8, re-quantised to e4m3 with
// one scale per (row, 64 columns); a row's 64 columns live in the 4 threads of a quad.
__device__ void swiglu_store(const Args& p, float (&acc)[kAcc], int r0, int rows_here, int row0, int n0) {
  const int t = threadIdx.x & 3;
  float amax[2] = {0.0f, 0.0f};
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    const float x1 = acc[i], x2 = acc[32 + i];
    const float c = x2 / (1.0f + __expf(-x2)) * x1;
    acc[i] = c;
    amax[(i & 3) >> 1] = fmaxf(amax[(i & 3) >> 1], fabsf(c));
  }
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    amax[half] = fmaxf(amax[half], __shfl_xor_sync(0xffffffffu, amax[half], 1));
    amax[half] = fmaxf(amax[half], __shfl_xor_sync(0xffffffffu, amax[half], 2));
    const int r = r0 + 8 * half;
    if (r >= rows_here) continue;
    const float inv = amax[half] > 0.0f ? 448.0f / amax[half] : 0.0f;
    const int64_t row = row0 + r;
#pragma unroll
    for (int ni = 0; ni < 8; ++ni) {
      const float2 v = make_float2(acc[4 * ni + 2 * half] * inv, acc[4 * ni + 2 * half + 1] * inv);
      *reinterpret_cast<__nv_fp8x2_storage_t*>(p.act + row * kI + n0 + 8 * ni + 2 * t) =
          __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
    }
    if (t == 0)
      p.act_scale[row * (kI / kQuant) + n0 / kQuant] = amax[half] > 0.0f ? amax[half] / 448.0f : 0.0f;
  }
}

// GEMM2's epilogue: weight * O scatter-added into the token's fp32 row.
__device__ void scatter_add(const Args& p, float (&acc)[kAcc], int r0, int rows_here, int row0, int n0) {
  const int t = threadIdx.x & 3;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int r = r0 + 8 * half;
    if (r >= rows_here) continue;
    const int row = row0 + r;
    const float wgt = p.row_weight[row];
    float* out = p.sum + static_cast<int64_t>(p.row_token[row]) * kH + n0 + 2 * t;
#pragma unroll
    for (int ni = 0; ni < 16; ++ni)
      atomicAdd(reinterpret_cast<float2*>(out + 8 * ni),
                make_float2(acc[4 * ni + 2 * half] * wgt, acc[4 * ni + 2 * half + 1] * wgt));
  }
}

// scatter_add in 16-byte reductions (kRed4): the two lanes of a quad pair that hold columns 2t, 2t + 1
// of rows r0 and r0 + 8 swap halves, so that the even lane holds four neighbouring columns of row r0
// and the odd one of row r0 + 8; half the reduction instructions reach the memory system, each twice
// as wide (GEMM2's epilogue stalls on lg_throttle and long_scoreboard: 8192 red.v2 an item).
__device__ void scatter_add4(const Args& p, float (&acc)[kAcc], int r0, int rows_here, int row0, int n0) {
  const int t = threadIdx.x & 3, odd = t & 1;
  const int r = r0 + 8 * odd;  // the row this lane writes
  const bool here = r < rows_here;
  const float wgt = here ? p.row_weight[row0 + r] : 0.0f;
  float* out = p.sum + (here ? static_cast<int64_t>(p.row_token[row0 + r]) * kH : 0) + n0 + 2 * (t - odd);
#pragma unroll
  for (int ni = 0; ni < 16; ++ni) {
    // Even lanes keep row r0's pair and send row r0 + 8's; odd lanes the other way round.
    const float send0 = odd ? acc[4 * ni] : acc[4 * ni + 2];
    const float send1 = odd ? acc[4 * ni + 1] : acc[4 * ni + 3];
    const float got0 = __shfl_xor_sync(0xffffffffu, send0, 1);
    const float got1 = __shfl_xor_sync(0xffffffffu, send1, 1);
    const float4 v = odd ? make_float4(got0 * wgt, got1 * wgt, acc[4 * ni + 2] * wgt, acc[4 * ni + 3] * wgt)
                         : make_float4(acc[4 * ni] * wgt, acc[4 * ni + 1] * wgt, got0 * wgt, got1 * wgt);
    if (here) atomicAdd(reinterpret_cast<float4*>(out + 8 * ni), v);
  }
}

// One 128-deep stage of a consumer warpgroup: kFolds groups of k32 wgmmas, each waited out and
// folded into acc with its activation scale (rows r0, r0 + 8) times the weight block's scale (GEMM1:
// X1's for accumulators [0, 32), X2's above). The stage is released (empty_s, and the
// same barrier of cluster block `peer` when it is >= 0) as soon as its last group has read shared
// memory.
template <bool kGemm1>
__device__ __forceinline__ void consume_stage(float (&acc)[kAcc], uint32_t a_base, uint32_t b_base,
                                              const float (&sa)[2][2], const float (&sw)[2],
                                              uint64_t* empty_s, int peer) {
  constexpr int kFolds = Shape<kGemm1>::kFolds, kSteps = 4 / kFolds;
#pragma unroll
  for (int f = 0; f < kFolds; ++f) {
    float tmp[kAcc];
#pragma unroll
    for (int i = 0; i < kAcc; ++i) tmp[i] = 0.0f;
    wg_fence();
#pragma unroll
    for (int kk = 0; kk < kSteps; ++kk) {
      const int k32 = kSteps * f + kk;
      wgmma_m64n128k32(tmp, make_desc(a_base + k32 * 32), make_desc(b_base + k32 * 32), kk);
    }
    wg_commit();
    wg_wait0();
#pragma unroll
    for (int i = 0; i < kAcc; ++i) reg_fence(tmp[i]);
    if (f == kFolds - 1) {
      __syncwarp();
      if ((threadIdx.x & 31) == 0) {
        mbar_arrive(empty_s);
        if (peer >= 0) mbar_arrive_remote(empty_s, static_cast<uint32_t>(peer));
      }
    }
#pragma unroll
    for (int i = 0; i < kAcc; ++i) {
      const float scale = sa[f][(i & 3) >> 1] * sw[kGemm1 && i >= 32 ? 1 : 0];
      acc[i] = fmaf(tmp[i], scale, acc[i]);
    }
  }
}

// k block kb's scales from its stage's slot (kTmaScales; the boxes' starts as produce aligned them):
// this thread's rows r0 and r0 + 8 of the tile at row0.
template <bool kGemm1>
__device__ __forceinline__ void read_scales(const uint8_t* slot, int row0, int kb, int r0, float (&sa)[2][2],
                                            float (&sw)[2]) {
  const float* a = reinterpret_cast<const float*>(slot);
  const float* w = reinterpret_cast<const float*>(slot + kScaleW) + (kb & 3);
  const int a_col = (2 * kb) & 3;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int r = r0 + 8 * half;
    sa[0][half] = kGemm1 ? a[(row0 & 3) + r] : a[4 * r + a_col];
    sa[1][half] = kGemm1 ? sa[0][half] : a[4 * r + a_col + 1];
  }
  sw[0] = w[0];
  sw[1] = kGemm1 ? w[32] : 0.0f;
}

// A consumer warpgroup's items: rows 64c .. 64c + 63 of each, this thread's rows r0 and r0 + 8
// (wgmma's D layout), accumulated over the k blocks in the order the producer issued them.
// kPrefetch: each k block's scales are loaded one k block ahead, so that their L2 latency hides
// behind a whole stage's wgmmas; otherwise just before the stage's wait, which returns at once when
// the producer is ahead.
template <bool kGemm1, bool kPair, bool kPrefetch, bool kTmaScales = false, bool kByColumn = false>
__device__ void consume(const Args& p, uint8_t* smem, uint64_t* full, uint64_t* empty, Items items) {
  using S = Shape<kGemm1>;
  const int peer = kPair ? static_cast<int>(cluster_rank() ^ 1u) : -1;
  const int c = static_cast<int>(threadIdx.x) / 128 - 1;
  const int warp = (static_cast<int>(threadIdx.x) / 32) % 4, g = (threadIdx.x & 31) >> 2;
  const int r0 = 64 * c + 16 * warp + g;
  constexpr int kHalfScaleRows = kI / kBlock;  // GEMM1: X2's scale rows follow X1's
  uint32_t it = 0;                             // k blocks consumed so far
  for (int i = items.first; i < items.total; i += items.stride) {
    const Item w = item_at<kGemm1, kByColumn>(p, i);
    // Where this thread's activation scales come from; rows past the tile read its first row's
    // (their results are not stored).
    const float* sa_src[2];
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = w.row0 + (r0 + 8 * half < w.rows_here ? r0 + 8 * half : 0);
      sa_src[half] =
          kGemm1 ? p.a_scale + p.row_token[row] : p.a_scale + static_cast<int64_t>(row) * (kI / kQuant);
    }
    const float* sw_src = p.w_scale + static_cast<int64_t>(w.e) * (S::kHalves * S::kNOut / kBlock) * S::KT +
                          (w.n0 / kBlock) * S::KT;
    float acc[kAcc];
#pragma unroll
    for (int j = 0; j < kAcc; ++j) acc[j] = 0.0f;
    auto load_scales = [&](int kb, float(&sa)[2][2], float(&sw)[2]) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        if constexpr (kGemm1) {
          sa[0][half] = __ldg(sa_src[half] + static_cast<int64_t>(kb) * p.tokens);
          sa[1][half] = sa[0][half];
        } else {
          sa[0][half] = __ldg(sa_src[half] + 2 * kb);
          sa[1][half] = __ldg(sa_src[half] + 2 * kb + 1);
        }
      }
      sw[0] = __ldg(sw_src + kb);
      sw[1] = kGemm1 ? __ldg(sw_src + kHalfScaleRows * S::KT + kb) : 0.0f;
    };
    float sa_next[2][2], sw_next[2];
    if constexpr (kPrefetch) load_scales(0, sa_next, sw_next);
    for (int kb = 0; kb < S::KT; ++kb, ++it) {
      const uint32_t s = it % kStages;
      float sa[2][2], sw[2];
      if constexpr (kPrefetch) {
#pragma unroll
        for (int j = 0; j < 4; ++j) sa[j / 2][j % 2] = sa_next[j / 2][j % 2];
        sw[0] = sw_next[0];
        sw[1] = sw_next[1];
        if (kb + 1 < S::KT) load_scales(kb + 1, sa_next, sw_next);
      } else if constexpr (!kTmaScales) {
        load_scales(kb, sa, sw);  // before the wait: their latency hides behind it when it waits
      }
      mbar_wait(&full[s], (it / kStages) & 1);
      if constexpr (kTmaScales)
        read_scales<kGemm1>(smem + kStages * kStageBytes + s * kScaleSlot, w.row0, kb, r0, sa, sw);
      const uint32_t stage = smem_u32(smem + s * kStageBytes);
      consume_stage<kGemm1>(acc, stage + 64 * c * 128, stage + kTileBytes, sa, sw, &empty[s], peer);
    }
    if constexpr (kGemm1)
      swiglu_store(p, acc, r0, w.rows_here, w.row0, w.n0);
    else
      scatter_add(p, acc, r0, w.rows_here, w.row0, w.n0);
  }
}

// kOverlap: consume with two accumulator sets, so that the tensor cores run one wgmma group while the
// warpgroup folds the one before. Group g of an item is fold g % kFolds of k block g / kFolds; even
// groups accumulate into ta, odd ones into tb (G = KT * kFolds is even in both GEMMs). Each group is
// issued, then wgmma.wait_group 1 waits out only the group before it, which is folded (and its stage
// released when it was the stage's last) while the new one runs. Needs ~200 registers a consumer
// thread: the kernel moves registers from the producer warpgroup (setmaxnreg).
struct GroupScales {
  float a[2];  // rows r0, r0 + 8
  float w[2];  // the weight block's (GEMM1: X1's, X2's)
};

template <bool kGemm1, bool kByColumn, bool kRed4, bool kPair>
__device__ void consume_overlap(const Args& p, uint8_t* smem, uint64_t* full, uint64_t* empty, Items items) {
  using S = Shape<kGemm1>;
  constexpr int kGroups = S::KT * S::kFolds, kSteps = 4 / S::kFolds, kChunk = 8;
  static_assert(kGroups % kChunk == 0 && kChunk % 2 == 0, "groups alternate between two accumulator sets");
  const int c = static_cast<int>(threadIdx.x) / 128 - 1;
  const int warp = (static_cast<int>(threadIdx.x) / 32) % 4, g8 = (threadIdx.x & 31) >> 2;
  const int r0 = 64 * c + 16 * warp + g8;
  // kPair: the peer's stages hold this block's half of the A tile too, so its producer waits for us.
  const int peer = kPair ? static_cast<int>(cluster_rank() ^ 1u) : -1;
  uint32_t base = 0;  // k blocks of earlier items
  float ta[kAcc], tb[kAcc];
#pragma unroll
  for (int i = 0; i < kAcc; ++i) ta[i] = tb[i] = 0.0f;
  for (int i = items.first; i < items.total; i += items.stride, base += S::KT) {
    const Item w = item_at<kGemm1, kByColumn>(p, i);
    float acc[kAcc];
#pragma unroll
    for (int j = 0; j < kAcc; ++j) acc[j] = 0.0f;
    // Group g0 + l (g0 a multiple of kChunk, l known at compile time once unrolled): its stage's wait
    // (first fold only), its scales, its wgmmas into t, committed.
    auto issue = [&](int g0, int l, float(&t)[kAcc], GroupScales& sc) {
      const int kb = (g0 + l) / S::kFolds, f = l % S::kFolds;
      const uint32_t it = base + kb, s = it % kStages;
      if (f == 0) mbar_wait(&full[s], (it / kStages) & 1);
      float sa[2][2], sw[2];
      read_scales<kGemm1>(smem + kStages * kStageBytes + s * kScaleSlot, w.row0, kb, r0, sa, sw);
      sc.a[0] = sa[f][0];
      sc.a[1] = sa[f][1];
      sc.w[0] = sw[0];
      sc.w[1] = sw[1];
      const uint32_t stage = smem_u32(smem + s * kStageBytes);
      wg_fence();
#pragma unroll
      for (int kk = 0; kk < kSteps; ++kk) {
        const int k32 = kSteps * f + kk;
        wgmma_m64n128k32(t, make_desc(stage + 64 * c * 128 + k32 * 32),
                         make_desc(stage + kTileBytes + k32 * 32), kk);
      }
      wg_commit();
    };
    // Group g0 + l, waited out: its stage released when it is the stage's last group, then folded.
    auto finish = [&](int g0, int l, float(&t)[kAcc], const GroupScales& sc) {
#pragma unroll
      for (int j = 0; j < kAcc; ++j) reg_fence(t[j]);
      if (l % S::kFolds == S::kFolds - 1) {
        __syncwarp();
        if ((threadIdx.x & 31) == 0) {
          uint64_t* empty_s = &empty[(base + (g0 + l) / S::kFolds) % kStages];
          mbar_arrive(empty_s);
          if (peer >= 0) mbar_arrive_remote(empty_s, static_cast<uint32_t>(peer));
        }
      }
#pragma unroll
      for (int j = 0; j < kAcc; ++j)
        acc[j] = fmaf(t[j], sc.a[(j & 3) >> 1] * sc.w[kGemm1 && j >= 32 ? 1 : 0], acc[j]);
    };
    // kChunk groups at a time, pipelined inside; nothing in flight across the loop's back edge, where
    // ptxas would serialise every wgmma. One fold in kChunk is exposed; GEMM1's code is 38 KB (142 KB
    // with the whole k loop unrolled).
#pragma unroll 1
    for (int g0 = 0; g0 < kGroups; g0 += kChunk) {
      GroupScales sa_, sb_;
      issue(g0, 0, ta, sa_);
#pragma unroll
      for (int l = 1; l < kChunk; l += 2) {
        issue(g0, l, tb, sb_);
        wg_wait1();
        finish(g0, l - 1, ta, sa_);
        if (l + 1 < kChunk) {
          issue(g0, l + 1, ta, sa_);
          wg_wait1();
          finish(g0, l, tb, sb_);
        }
      }
      wg_wait0();
      finish(g0, kChunk - 1, tb, sb_);
    }
    if constexpr (kGemm1)
      swiglu_store(p, acc, r0, w.rows_here, w.row0, w.n0);
    else if constexpr (kRed4)
      scatter_add4(p, acc, r0, w.rows_here, w.row0, w.n0);
    else
      scatter_add(p, acc, r0, w.rows_here, w.row0, w.n0);
  }
}

// kPersistent: one block an SM walks the items; otherwise a (column tile, row tile) grid, one item
// a block, blocks past the tile list leaving at once. kPair (not persistent): clusters of two
// blocks share their A tiles (produce). kPrefetch: see consume.
template <bool kGemm1, bool kPersistent, bool kPair = false, bool kPrefetch = false>
__global__ void __launch_bounds__(kThreads, 1)
    fp8_gemm_ws(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_w,
                Args p) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t* smem = smem_raw + ((1024u - (smem_u32(smem_raw) & 1023u)) & 1023u);  // 128-byte swizzle atoms
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * kStageBytes);
  uint64_t* empty = full + kStages;
  Items items;
  items.total = *p.num_tiles * (Shape<kGemm1>::kNOut / Shape<kGemm1>::BN);
  items.first = static_cast<int>(kPersistent ? blockIdx.x : blockIdx.y * gridDim.x + blockIdx.x);
  items.stride = kPersistent ? static_cast<int>(gridDim.x) : items.total;
  if (items.first >= items.total) return;
  static_assert(!(kPair && kPersistent), "a pair walks one item");
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], kConsumerWarps * (kPair ? 2 : 1));
    }
    mbar_init_fence();
  }
  if constexpr (kPair) {
    cluster_sync();  // the peer's barriers are set up before any load or arrival reaches them
    if (threadIdx.x < 128) {
      if (threadIdx.x == 0) produce<kGemm1, true>(&map_a, &map_w, p, smem, full, empty, items);
    } else {
      consume<kGemm1, true, kPrefetch>(p, smem, full, empty, items);
    }
    cluster_sync();  // no block leaves while its peer may still arrive on its barriers
    return;
  }
  __syncthreads();
  if (threadIdx.x < 128) {  // producer warpgroup: one thread issues every load
    if (threadIdx.x == 0) produce<kGemm1, false>(&map_a, &map_w, p, smem, full, empty, items);
    return;
  }
  consume<kGemm1, false, kPrefetch>(p, smem, full, empty, items);
}

// fp8_gemm_ws, persistent, with the block scales streamed into the stages by TMA beside the operand
// tiles (kTmaScales), so that the consumers read them from shared memory: loaded from global memory
// by the consumers, they queue behind the stages' bulk traffic and the fold waits for them.
// kByColumn: item_at's order.
// kPair: launched as clusters of two whose blocks walk the same items' row tiles on neighbouring
// column tiles in step (the grid and the column tiles a row tile are even, so blocks 2c and 2c + 1
// take items 2j and 2j + 1 of one row tile together); each producer multicasts half of the shared
// A tile into both blocks, as fp8_gemm_ws's kPair, while the scales stay each block's own loads.
// kOverlap: consume_overlap, the producer warpgroup handing its registers to the
// consumers (40 each; 232 each consumer thread: 64512 of the SM's 65536). kRed4 (with kOverlap):
// GEMM2's epilogue is scatter_add4.
template <bool kGemm1, bool kByColumn = false, bool kPair = false, bool kOverlap = false, bool kRed4 = false>
__global__ void __launch_bounds__(kThreads, 1)
    fp8_gemm_ws_tma_scales(const __grid_constant__ CUtensorMap map_a,
                           const __grid_constant__ CUtensorMap map_w,
                           const __grid_constant__ CUtensorMap map_sa,
                           const __grid_constant__ CUtensorMap map_sw, Args p) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t* smem = smem_raw + ((1024u - (smem_u32(smem_raw) & 1023u)) & 1023u);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * (kStageBytes + kScaleSlot));
  uint64_t* empty = full + kStages;
  Items items;
  items.total = *p.num_tiles * (Shape<kGemm1>::kNOut / Shape<kGemm1>::BN);
  items.first = static_cast<int>(blockIdx.x);
  items.stride = static_cast<int>(gridDim.x);
  if (items.first >= items.total) return;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], kConsumerWarps * (kPair ? 2 : 1));
    }
    mbar_init_fence();
  }
  // A pair: the peer's barriers are set up before any multicast or arrival reaches them, and
  // neither block leaves while the other may still write into its shared memory.
  if constexpr (kPair)
    cluster_sync();
  else
    __syncthreads();
  if (threadIdx.x < 128) {
    if constexpr (kOverlap) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    if (threadIdx.x == 0)
      produce<kGemm1, kPair, true, kByColumn>(&map_a, &map_w, p, smem, full, empty, items,
                                              ScaleMaps{&map_sa, &map_sw});
  } else if constexpr (kOverlap) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    consume_overlap<kGemm1, kByColumn, kRed4, kPair>(p, smem, full, empty, items);
  } else {
    consume<kGemm1, kPair, false, true, kByColumn>(p, smem, full, empty, items);
  }
  if constexpr (kPair) cluster_sync();
}

// GEMM1's activation rows in expert order (row r = hidden_states[row_token[r]]), for TMA.
__global__ void gather_rows(const uint4* __restrict__ hidden, const int* __restrict__ row_token,
                            const int* __restrict__ offsets, int local, uint4* __restrict__ out) {
  constexpr int kVec = kH / 16;
  const int rows = offsets[local];
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const uint4* src = hidden + static_cast<int64_t>(row_token[r]) * kVec;
    uint4* dst = out + static_cast<int64_t>(r) * kVec;
    for (int i = threadIdx.x; i < kVec; i += blockDim.x) dst[i] = __ldg(src + i);
  }
}

// GEMM1's activation scales in expert order, for TMA: out[kb][r] = scale[kb][row_token[r]] (kTmaScales),
// rows_pad floats a k block.
__global__ void gather_scales(const float* __restrict__ scale, const int* __restrict__ row_token,
                              const int* __restrict__ offsets, int local, int tokens, int64_t rows_pad,
                              float* __restrict__ out) {
  constexpr int kKt = kH / kBlock;
  const int64_t rows = offsets[local];
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows * kKt;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t kb = i / rows, r = i % rows;  // r fastest: the stores coalesce
    out[kb * rows_pad + r] = __ldg(scale + kb * tokens + row_token[r]);
  }
}

}  // namespace moe_fp8_grouped::ws
